import { keccak256, stringToHex, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { ConfigError, isLoopbackHost, type Config } from '../platform/config';
import { signingAccount } from '../protocol/ecdsa';

/**
 * Public and therefore worthless: the key a fresh checkout signs with, so `npm start` and the
 * tests run without configuration. The devchain registers its address on the mothership.
 */
export const DEVELOPMENT_SERVICE_SIGNER_KEY: Hex = keccak256(stringToHex('options-rfq development service signer: do not deploy'));

export const DEVELOPMENT_SERVICE_SIGNER: PrivateKeyAccount = signingAccount(DEVELOPMENT_SERVICE_SIGNER_KEY);

/** What the signer rule needs of a registered network: only its URLs are inspected, never contacted. */
export interface SignerNetwork {
  chain_id: number;
  rpc_urls: readonly string[];
}

/** True when the URL's host is a loopback address (127.0.0.0/8, ::1, localhost). A malformed URL is not. */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname);
  } catch {
    return false;
  }
}

/**
 * Why the public development key may not sign for these networks, or null when it may. It may
 * only on this machine's own devchain: outside production, with DEVCHAIN on (not `off`), and
 * when every registered network is reached on a loopback RPC URL. Where the server binds
 * (HOST) does not matter: what the key can sign for does.
 */
export function developmentKeyProblem(config: Pick<Config, 'NODE_ENV' | 'DEVCHAIN'>, networks: readonly SignerNetwork[]): string | null {
  if (config.NODE_ENV === 'production') return 'required when NODE_ENV=production (0x and 64 hex digits)';
  if (config.DEVCHAIN === 'off') {
    return "required when DEVCHAIN=off: the public development key signs only for this machine's own devchain (0x and 64 hex digits)";
  }
  for (const n of networks) {
    const remote = n.rpc_urls.length === 0 ? '(no RPC URL)' : n.rpc_urls.find((u) => !isLoopbackUrl(u));
    if (remote !== undefined) {
      return (
        `required: network ${n.chain_id} (${remote}) is not this machine's devchain (its RPC URL is not loopback), and the development key is public, ` +
        'so anyone could sign Dutch awards and exclusive fills for it (0x and 64 hex digits)'
      );
    }
  }
  return null;
}

/**
 * The account the service signs Dutch awards and exclusive fills with (docs/PROTOCOL.md,
 * "Service signer"): SERVICE_SIGNER_KEY, or the public development key when
 * `developmentKeyProblem` allows it for the registered `networks`; otherwise a ConfigError
 * (exit 78). The roles that sign (api, workers) build it once at start, so a missing key stops
 * the process before it serves anything. The key itself never leaves the returned account.
 */
export function serviceSigner(config: Pick<Config, 'SERVICE_SIGNER_KEY' | 'NODE_ENV' | 'DEVCHAIN'>, networks: readonly SignerNetwork[]): PrivateKeyAccount {
  if (config.SERVICE_SIGNER_KEY) return signingAccount(config.SERVICE_SIGNER_KEY as Hex);
  const problem = developmentKeyProblem(config, networks);
  if (problem) throw new ConfigError([{ key: 'SERVICE_SIGNER_KEY', message: problem }]);
  return DEVELOPMENT_SERVICE_SIGNER;
}
