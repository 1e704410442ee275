import { getAddress } from 'viem';
import type { DataSource } from 'typeorm';
import type { Erc20FundsReader } from '../chain/erc20-funds';
import type { Logger } from '../platform/logging';
import { dutchPremiumAt, improvedPremium, parseDutchRequest, type DutchFillRequest } from '../protocol';
import type { PairDirectory } from '../quotes';
import { TakerUnfillableRepository, type DueTakerCheck } from './taker-unfillable.repository';

/**
 * The least the paying taker owes the winner for a fill inside its exclusive window: the curve
 * at the award's `not_before` improved by the winning bps. While the taker pays the curve only
 * rises, so every fill the winner could have made cost at least this; a taker holding less (or
 * allowing the mothership less) could not have been filled at any moment of the window.
 */
export function leastOwedInWindow(request: DutchFillRequest, award: { improvement_bps: string; not_before: number }): bigint {
  const curve = dutchPremiumAt(request.dutchPremium, request.auctionEnd, Number(award.not_before));
  return improvedPremium(curve, false, BigInt(award.improvement_bps));
}

/**
 * At the end of an awarded exclusive window (workers: the Dutch clock's opening, and the
 * window's own `dutch.open` job as the backstop), reads from the chain whether the taker could
 * pay: when the taker pays the premium, its balance of the premium token and its allowance to the
 * mothership (the request's `required_dutch_authority`, which pulls the premium) against the
 * least the winner's fill could have cost it. The read is stored once per quote
 * (`dutch_taker_checks`); the indexer's decision of the window reads it (shared/dutch/dutch-fades.ts):
 * a missed window whose taker was short is the taker's, not the winner's fade.
 */
export class TakerFundsCheck {
  private readonly repo: TakerUnfillableRepository;

  constructor(
    private readonly deps: { db: DataSource; pairs: PairDirectory; logger: Logger; reader: Erc20FundsReader },
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new TakerUnfillableRepository(deps.db);
  }

  /**
   * Checks every quote of `ids` whose check is due (see TakerUnfillableRepository.due). Each
   * quote's failure is logged and does not stop the rest; the first is thrown at the end, so a
   * job retries what it could not read.
   */
  async run(ids: readonly string[]): Promise<number> {
    const due = await this.repo.due(ids, new Date(this.clock()));
    let stored = 0;
    let first: unknown = null;
    for (const q of due) {
      try {
        if (await this.checkOne(q)) stored++;
      } catch (err) {
        first ??= err;
        this.deps.logger.warn(
          { quote_id: q.id, chain_id: q.chain_id, err: (err as Error).message },
          "the Dutch taker's funds could not be read at its window's end",
        );
      }
    }
    if (first) throw first;
    return stored;
  }

  private async checkOne(q: DueTakerCheck): Promise<boolean> {
    const request = parseDutchRequest(q.dutch_request, { now: 0 });
    const award = q.award as unknown as { improvement_bps: string; not_before: number };
    const owed = leastOwedInWindow(request, award);
    const token = getAddress(request.dutchPremium.token);
    const spender = getAddress(request.requiredDutchAuthority);
    const taker = getAddress(q.taker_address);
    const funds = await this.deps.reader.read({ chainId: q.chain_id, rpcUrl: await this.rpcUrl(q.chain_id) }, token, taker, spender);
    const short = funds.balance < owed || funds.allowance < owed;
    const stored = await this.repo.record({
      quote_id: q.id,
      chain_id: q.chain_id,
      taker,
      token,
      spender,
      owed,
      balance: funds.balance,
      allowance: funds.allowance,
      short,
      block_number: funds.blockNumber,
      block_timestamp: funds.blockTimestamp,
    });
    if (stored && short) {
      this.deps.logger.info(
        { quote_id: q.id, chain_id: q.chain_id, owed: owed.toString(), balance: funds.balance.toString(), allowance: funds.allowance.toString() },
        "a Dutch taker could not pay its winner's price when the window ended: the window is recorded against the taker, not as the winner's fade",
      );
    }
    return stored;
  }

  private async rpcUrl(chainId: number): Promise<string> {
    const dir = await this.deps.pairs.get(chainId);
    const url = dir?.network.rpc_urls.find((u) => u.startsWith('http://') || u.startsWith('https://'));
    if (!url) throw new Error(`chain ${chainId} has no HTTP RPC to read the taker's funds from`);
    return url;
  }
}
