import { getAddress, isAddress, type Address } from 'viem';

/**
 * Which keys of a network's contract map name a pair (CLOB) contract: `opshuns_core`, `pair` and
 * `pair_<name>`, except the pair factory (`pair_factory`), which creates pairs and is not one.
 * Quote creation accepts these pairs and `GET /api/indexer/cores` lists them, from this one rule.
 */
const PAIR_KEY = /^(opshuns_core|pair(_[a-z0-9_]+)?)$/;
const FACTORY_KEY = /_factory$/;

export function isPairKey(key: string): boolean {
  return PAIR_KEY.test(key) && !FACTORY_KEY.test(key);
}

/** The pair contracts a network's entry names, checksummed, without duplicates. */
export function networkPairs(contracts: Record<string, string>): Address[] {
  const out = new Set<Address>();
  for (const [key, value] of Object.entries(contracts)) {
    if (isPairKey(key) && isAddress(value, { strict: false })) out.add(getAddress(value));
  }
  return [...out];
}
