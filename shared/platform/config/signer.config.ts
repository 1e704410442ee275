import { z } from 'zod';

/**
 * The service's own signing key (docs/PROTOCOL.md, "Service signer"). It signs what the
 * reference contracts accept from the service alone: Dutch awards and exclusive fills. Its
 * address must be registered on each network's mothership. No default here: only the roles
 * that sign read it (shared/chain/service-signer.ts), falling back to a public development key
 * only for this machine's own devchain and refusing to start otherwise.
 */
export const signerEnv = {
  /** secp256k1 private key, 0x and 64 hex digits. Required in production by the api and workers roles. Never logged. */
  SERVICE_SIGNER_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits (a secp256k1 private key)')
    .refine((v) => !/^0x0{64}$/.test(v), 'must not be zero')
    .optional(),
};
