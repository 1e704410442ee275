import { getAddress, isAddress } from 'viem';
import type { EmitterRole } from '../types';
import type { Hex } from '../rpc/rpc';

/**
 * The contracts one network's tailer reads: the pair factory and the mothership from the
 * network's contracts (the "contract set"), plus every pair the factory created (discovered from its
 * events). Addresses are kept lower-case for matching.
 */
export interface Sources {
  chainId: number;
  factory: Hex | null;
  mothership: Hex | null;
  /** The maker BondVault, when the network's contracts name one. */
  bondVault: Hex | null;
  pairs: Set<string>;
  /** The reference lending market and its price oracle (the network's `margin_*` contract keys), when the network has them. */
  lendingMarket: Hex | null;
  priceOracle: Hex | null;
  /** Names the network's contracts this cursor covers; a different set starts the network over. */
  contractSet: string;
}

function firstAddress(contracts: Record<string, string>, keys: readonly string[]): Hex | null {
  for (const k of keys) {
    const v = contracts[k];
    if (v && isAddress(v, { strict: false })) return getAddress(v).toLowerCase() as Hex;
  }
  return null;
}

export function sourcesFor(
  chainId: number,
  contracts: Record<string, string>,
  keys: {
    factory: readonly string[];
    mothership: readonly string[];
    bondVault?: readonly string[];
    lendingMarket?: readonly string[];
    priceOracle?: readonly string[];
  },
  pairs: Iterable<string> = [],
): Sources {
  const factory = firstAddress(contracts, keys.factory);
  const mothership = firstAddress(contracts, keys.mothership);
  const bondVault = firstAddress(contracts, keys.bondVault ?? []);
  const lendingMarket = firstAddress(contracts, keys.lendingMarket ?? []);
  const priceOracle = firstAddress(contracts, keys.priceOracle ?? []);
  // A vault or a lending market joins the set only when present, so networks without one keep their cursors.
  const vault = bondVault ? `;bondVault=${bondVault}` : '';
  const lending = lendingMarket || priceOracle ? `;lending_market=${lendingMarket ?? 'none'};price_oracle=${priceOracle ?? 'none'}` : '';
  return {
    chainId,
    factory,
    mothership,
    bondVault,
    pairs: new Set([...pairs].map((p) => p.toLowerCase())),
    lendingMarket,
    priceOracle,
    contractSet: `factory=${factory ?? 'none'};mothership=${mothership ?? 'none'}${vault}${lending}`,
  };
}

/** The role an emitter plays, or null for an address we do not read. */
export function roleOf(s: Sources): (address: string) => EmitterRole | null {
  return (address) => {
    if (address === s.factory) return 'factory';
    if (address === s.mothership) return 'mothership';
    if (address === s.bondVault) return 'bondVault';
    if (s.pairs.has(address)) return 'pair';
    if (address === s.lendingMarket) return 'lending_market';
    if (address === s.priceOracle) return 'price_oracle';
    return null;
  };
}

/** Every address to ask `eth_getLogs` about, given the pairs known at that moment. */
export function watchedAddresses(s: Sources, pairs: Iterable<string> = s.pairs): Hex[] {
  const out = new Set<string>();
  if (s.factory) out.add(s.factory);
  if (s.mothership) out.add(s.mothership);
  if (s.bondVault) out.add(s.bondVault);
  if (s.lendingMarket) out.add(s.lendingMarket);
  if (s.priceOracle) out.add(s.priceOracle);
  for (const p of pairs) out.add(p);
  return [...out] as Hex[];
}
