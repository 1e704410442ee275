import type { Network } from './api.types';

/**
 * A deployed contract of a known network (GET /api/networks), by contract key
 * (`mothership`, `usdc`, `opshuns_core`...). Throws when the network has none, so a
 * misconfigured deployment fails at start rather than when signing.
 */
export function networkContract(network: Network, key: string): `0x${string}` {
  const address = network.contracts[key];
  if (!address) throw new Error(`network ${network.chain_id} has no ${key} contract`);
  return address as `0x${string}`;
}
