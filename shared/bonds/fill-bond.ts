import { getAddress, type Address } from 'viem';
import { ForbiddenError } from '../platform/errors';
import { independentReads, type Queryable } from '../platform/db';
import { indexedBonds, liveRights, type BondHolder } from './fill-bond.repository';
import type { NetworksService } from '../networks';

/** Per premium-token symbol: the fill bond minimum and the bond the maker has available. */
export type FillBondRequirements = Record<string, { token: string; fill_bond_amount: string; maker_bond: string }>;

/**
 * The fill bond check of everything that grants a maker an exclusive right over a taker's or an
 * owner's flow: an exclusive fill over book orders, and a Dutch bid (whose winner gets the
 * exclusive window). Per premium token, the operator's minimum (setting `bond_requirements`, by
 * the token's symbol) against the maker's available bond: its indexed balance minus any pending
 * withdrawal, which the vault's delay keeps in place until every window granted now has ended.
 *
 * Fails closed: a premium token with no entry in `bond_requirements` is refused (403
 * `bond_requirement_missing`); an operator who wants no bond for it sets an explicit zero.
 * A shortfall is a 403 `insufficient_fill_bond` whose body carries `fill_bond_requirements`.
 */
export class FillBondCheck {
  /** `oneConnection`: `db` is a transaction (under the maker's lock), whose one connection runs its reads in turn. */
  constructor(private readonly deps: { db: Queryable; networks: Pick<NetworksService, 'bondRequirements'>; oneConnection?: boolean }) {}

  /** `symbols`: the chain's token symbols by address (a token without one is named by its address). */
  async check(
    chainId: number,
    maker: Address,
    premiumTokens: readonly string[],
    symbols: ReadonlyMap<string, string>,
    holder?: BondHolder,
  ): Promise<FillBondRequirements> {
    const tokens = [...new Set(premiumTokens.map((t) => getAddress(t)))];
    const [{ tokens: minimums }, bonds, live] = await independentReads(
      this.deps.oneConnection ?? false,
      () => this.deps.networks.bondRequirements(),
      () => indexedBonds(this.deps.db, chainId, getAddress(maker), tokens),
      () => (holder ? liveRights(this.deps.db, chainId, getAddress(maker), holder, tokens) : Promise.resolve(new Map<string, number>())),
    );
    const missing = tokens.filter((t) => !Object.prototype.hasOwnProperty.call(minimums, symbols.get(t) ?? t));
    if (missing.length > 0) {
      const names = missing.map((t) => `${symbols.get(t) ?? t} (${t})`).join(', ');
      throw new ForbiddenError(
        `premium token ${names} has no fill bond requirement: the operator must set bond_requirements for it (an explicit "0" to require no bond)`,
        'bond_requirement_missing',
      );
    }
    const out: FillBondRequirements = {};
    const short: string[] = [];
    for (const token of tokens) {
      const symbol = symbols.get(token) ?? token;
      const needed = BigInt(minimums[symbol].fill_bond_amount);
      const bond = bonds.get(token) ?? { balance: 0n, pending: 0n };
      // Each live right of the holder keeps one fill bond of its token: one bond backs one right at a time.
      const rights = BigInt(live.get(token.toLowerCase()) ?? 0);
      const reserved = needed * rights;
      const free = bond.balance - bond.pending - reserved;
      const available = free > 0n ? free : 0n;
      out[symbol] = { token, fill_bond_amount: needed.toString(), maker_bond: available.toString() };
      if (available < needed) {
        const pending = bond.pending > 0n ? ` (${bond.pending} of ${bond.balance} is pending withdrawal)` : '';
        const held = rights > 0n ? ` (${reserved} of ${bond.balance} is reserved by ${rights} live exclusive right(s): bids, awards, exclusive fills)` : '';
        short.push(`${symbol} bond ${available}${pending}${held} is below the fill bond minimum ${needed}`);
      }
    }
    if (short.length > 0) {
      throw new ForbiddenError(
        `insufficient fill bond: ${short.join('; ')}; deposit into the BondVault and retry once indexed`,
        'insufficient_fill_bond',
        undefined,
        {
          fill_bond_requirements: out,
        },
      );
    }
    return out;
  }
}
