import { z } from 'zod';
import { envInt } from './schema-helpers';

export const chainEnv = {
  /**
   * `auto`: when the networks table has no network (or its devchain lost its contracts), `npm start`
   * runs a local Hardhat node with the reference contracts and registers it as network 31337.
   * Never in production. `off`: the networks table alone says which chains exist.
   */
  DEVCHAIN: z.enum(['auto', 'off']).default('auto'),
  /** Port of the devchain's JSON-RPC server on 127.0.0.1. */
  DEVCHAIN_PORT: envInt(8545, 1, 65535),
};
