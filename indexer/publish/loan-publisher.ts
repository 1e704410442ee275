import type { DataSource } from 'typeorm';
import type { JsonValue } from '../../shared/events';
import { formatWad, isoFromUnix, LOAN_FEED_SUBJECT, loanEventView, loanPublicId, LoanRepository } from '../../shared/loans';
import type { Changeset } from '../store/derived-tables';
import type { LoanHealthCrossing } from '../store/loan-writer';
import type { FeedSpool } from './feed-spool';

/** One `explore_loan_event` to send: its payload and the idempotency key naming it once. */
interface Outgoing {
  payload: Record<string, unknown>;
  key: string;
  /** Chain order, so a stream hears a batch as the chain ordered it (crossings after the block's logs). */
  order: [number, number];
}

/**
 * Live loan events for the loan streams watching a network (`explore_loan_stream:<token>`),
 * appended once to the network's loan outbox and fanned out by the workers (each watcher hears
 * events of blocks after its snapshot, in chain order): every loan event of a batch (`event: "loan"`, the /activity item),
 * every price update (`event: "price"`), every crossing of the at-risk line (`event: "health"`);
 * after a rollback that undid loan or price rows, a `reorg` notice and a fresh snapshot. Best
 * effort after commit, like the other live events: the tables are the record.
 */
export function createLoanPublisher(deps: { db: DataSource; feeds: FeedSpool }) {
  const repo = new LoanRepository(deps.db);

  const send = async (chainId: number, out: Outgoing[]) => {
    if (out.length === 0) return;
    out.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1]);
    const entries = out.map((o) => ({
      block: o.order[0],
      key: o.key,
      event: 'explore_loan_event',
      payload: { chain_id: chainId, ...o.payload } as JsonValue,
    }));
    await deps.feeds.append('loan', chainId, LOAN_FEED_SUBJECT, entries);
  };

  return {
    async batch(chainId: number, changes: Changeset, crossings: LoanHealthCrossing[]): Promise<void> {
      if (changes.indexer_loan_events.length === 0 && changes.indexer_prices.length === 0 && crossings.length === 0) return;
      // Written rows, read back: an older loan's parties were filled in by the write.
      const written = await repo.eventsAt(chainId, changes.indexer_loan_events);
      const out: Outgoing[] = [
        ...written.map((e) => ({
          payload: { event: 'loan', ...loanEventView(e) },
          key: `loan:${e.block_hash}:${e.log_index}`,
          order: [Number(e.block_number), e.log_index] as [number, number],
        })),
        ...changes.indexer_prices.map((p) => ({
          payload: {
            event: 'price',
            oracle: p.oracle,
            token: p.token,
            price_wad: p.price_wad,
            price_usd: formatWad(BigInt(p.price_wad)),
            decimals: p.decimals,
            block_number: p.block_number,
            block_hash: p.block_hash,
            log_index: p.log_index,
            tx_hash: p.tx_hash,
            at: isoFromUnix(p.block_timestamp),
          },
          key: `price:${p.block_hash}:${p.log_index}`,
          order: [p.block_number, p.log_index] as [number, number],
        })),
        ...crossings.map((c) => ({
          payload: {
            event: 'health',
            crossed: c.crossed,
            cause: c.cause,
            loan: loanPublicId(chainId, c.loan_id),
            loan_id: c.loan_id,
            market: c.market,
            borrower: c.borrower,
            lender: c.lender,
            collateral_token: c.collateral_token,
            debt_token: c.debt_token,
            health_before: formatWad(c.health_before === null ? null : BigInt(c.health_before)),
            health_after: formatWad(c.health_after === null ? null : BigInt(c.health_after)),
            block_number: c.block_number,
            block_hash: c.block_hash,
            at: isoFromUnix(c.block_timestamp),
          },
          key: `health:${c.block_hash}:${c.market}:${c.loan_id}:${c.crossed}`,
          order: [c.block_number, Number.MAX_SAFE_INTEGER] as [number, number],
        })),
      ];
      await send(chainId, out);
    },

    async reorg(chainId: number, point: { number: number; hash: string | null; key: string }): Promise<void> {
      const rollback = { ancestor_block: point.number, ancestor_hash: point.hash };
      const key = `loan.${point.key.replace(/[^A-Za-z0-9:_.-]/g, '')}`;
      await deps.feeds.append('loan', chainId, LOAN_FEED_SUBJECT, [{ block: point.number, key, rollback }]);
    },
  };
}
