import type { Tracer } from '@opentelemetry/api';
import { getAddress } from 'viem';
import type { DataSource } from 'typeorm';
import type { Config } from '../../shared/platform/config';
import { ExploreStreamHub, type OutboxEntry } from '../../shared/explore';
import type { JobQueue } from '../../shared/platform/queue';
import { EventPublisher, topics, type JsonValue } from '../../shared/events';
import type { Logger } from '../../shared/platform/logging';
import type { Metrics } from '../../shared/platform/metrics';
import { publishQuoteResult, type ReopenedResultView } from '../../shared/quotes';
import { fadeStatus, resultMakers, type NewFade } from '../../shared/dutch';
import type { Redis } from '../../shared/platform/redis';
import { INDEXED_EVENTS, isEventKind } from '../chain-events/indexed-events';
import type { EventRow, TransferRow } from '../types';
import type { Changeset } from '../store/derived-tables';
import type { FilledQuote, ReopenedQuote } from '../store/indexer-store';
import type { LoanHealthCrossing } from '../store/loan-writer';
import { FeedSpool } from './feed-spool';
import { createLoanPublisher } from './loan-publisher';

/**
 * Live events the indexer sends after a write has committed. Delivery is best effort: the
 * database is the record, and every event carries an idempotency key, so a publish retried
 * after a crash sends nothing twice.
 */
/** The block a rollback went back to (number -1 and no hash: before genesis), and a key naming that rollback once. */
export interface RollbackPoint {
  number: number;
  hash: string | null;
  /** Idempotency key part: the ancestor's hash for a reorg, the request for a resync. */
  key: string;
}

export interface LivePublisher {
  settled(chainId: number, filled: FilledQuote[]): Promise<void>;
  /**
   * Quotes whose settlement was rolled back: `rfq_result` with `reorged: true` and the state
   * they are in again, to the taker's stream and to the makers that heard the fill.
   */
  reopened(chainId: number, quotes: ReopenedQuote[], point: RollbackPoint): Promise<void>;
  /**
   * Each pair event and transfer of a batch, appended once to its pair's explore outbox when
   * someone watches that pair (the workers publish it once to the pair's feed topic; the socket
   * tier relays it to the streams); nothing is built for a pair nobody watches. Returns at once:
   * the check and the append run behind the tail loop, in order (see FeedSpool).
   */
  explore(chainId: number, changes: Changeset): Promise<void>;
  /** Appends a rollback to each of `pairs`' outboxes: its watchers hear it, then a fresh snapshot. Behind the tail loop too. */
  exploreReorg(chainId: number, pairs: string[], point: RollbackPoint): Promise<void>;
  /** A realtime batch's loan events, price updates and at-risk crossings, to the network's loan outbox (behind the tail loop). */
  loans(chainId: number, changes: Changeset, crossings: LoanHealthCrossing[]): Promise<void>;
  /** Appends a rollback to the network's loan outbox (behind the tail loop). */
  loansReorg(chainId: number, point: RollbackPoint): Promise<void>;
  /** Resolves once every explore and loan append handed over so far is done (or given up). */
  idle?(): Promise<void>;
  /** Dutch winners that let their exclusive window pass: `dutch_fade` on each winner's rfq_maker topic, with its fade status. */
  fades(chainId: number, fades: NewFade[]): Promise<void>;
}

/**
 * The taker's stream of a quote. Only the stream token's sha-256 is stored, and topics of
 * token-named streams are keyed by that hash (shared/events), so the hash addresses it.
 */
export const takerStream = (streamTokenHash: string) => topics.rfqStream(streamTokenHash);

/** One pair event or transfer as its explore outbox entry (`explore_clob_event` / `explore_clob_transfer`). */
function clobEntry(chainId: number, pair: string, row: EventRow | TransferRow, transfer: boolean): OutboxEntry {
  const position = {
    block_number: row.block_number,
    block_hash: row.block_hash,
    block_timestamp: row.block_timestamp,
    time: new Date(row.block_timestamp * 1000).toISOString(),
    log_index: row.log_index,
    tx_hash: row.tx_hash,
  };
  const key = `${transfer ? 'tr' : 'ev'}:${row.block_hash}:${row.log_index}`;
  if (transfer) {
    const t = row as TransferRow;
    const payload = {
      chain_id: chainId,
      clob: pair,
      caller: t.caller,
      sender: t.sender,
      receiver: t.receiver,
      option_id: t.option_id,
      amount: t.amount,
      ...position,
    };
    return { block: row.block_number, key, event: 'explore_clob_transfer', payload };
  }
  const e = row as EventRow;
  const payload = { chain_id: chainId, clob: pair, event: e.event_name, args: e.args as JsonValue, ...position };
  return { block: row.block_number, key, event: 'explore_clob_event', payload };
}

/** Events a pair (CLOB) emits are what its explore watchers follow. */
const isPairEvent = (name: string) => isEventKind(name) && INDEXED_EVENTS[name].emitter === 'pair';

export function createLivePublisher(deps: {
  db: DataSource;
  redis: Redis;
  config: Config;
  metrics?: Metrics;
  logger: Logger;
  queue: JobQueue;
  tracer?: Tracer;
}): LivePublisher {
  const events = new EventPublisher({ redis: deps.redis, config: deps.config, metrics: deps.metrics, tracer: deps.tracer });
  const hub = new ExploreStreamHub({ db: deps.db, redis: deps.redis, config: deps.config, events });
  const feeds = new FeedSpool(hub, deps.queue, deps.logger);
  const loans = createLoanPublisher({ db: deps.db, feeds });
  // Makers that offered or bid hear a quote's result.
  const makersOf = resultMakers(deps.db);

  const guard = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (err) {
      deps.logger.warn({ what, err: (err as Error).message }, 'live publish failed; the data is stored and the API serves it');
    }
  };

  return {
    async settled(_chainId, filled) {
      // Quote payloads are shaped in one place (shared/quotes): the taker hears the fill with its
      // transaction; makers that offered hear the outcome, never the taker or the fill tx.
      for (const f of filled) {
        // The settling maker hears it too, even if it never posted its offer through the API.
        const key = `rfq_result.${f.quote_id}.${f.settlement.block_hash.slice(2)}.${f.filled_at_ms}`;
        const opts = { idempotencyKey: key, alsoMakers: [f.settlement.maker as `0x${string}`] };
        await guard('rfq_result', () =>
          publishQuoteResult({ db: deps.db, events, resultMakers: makersOf, streamGraceSeconds: deps.config.QUOTE_STREAM_GRACE_SECONDS }, f.quote_id, opts),
        );
      }
    },

    async reopened(chainId, quotes, point) {
      for (const q of quotes) {
        // Nothing here names the taker: the same payload may go to makers.
        const payload: ReopenedResultView = { quote_id: q.quote_id, chain_id: chainId, state: q.state, reorged: true, rolled_back_to: point.number };
        const once = { idempotencyKey: `reorg:${q.quote_id}:${point.key}` };
        await guard('rfq_result', async () => {
          const makers = new Set([...(await makersOf(q.quote_id)), getAddress(q.maker)]);
          await events.publish(takerStream(q.stream_token_hash), 'rfq_result', payload, once);
          for (const m of makers) await events.publish(topics.rfqMaker(m), 'rfq_result', payload, once);
        });
      }
    },

    async explore(chainId, changes) {
      // Pair events and transfers, merged back into chain order, grouped by pair: each once per pair.
      const byPair = new Map<string, { row: EventRow | TransferRow; transfer: boolean }[]>();
      const items = [
        ...changes.indexer_events.filter((e) => isPairEvent(e.event_name)).map((e) => ({ pair: e.address, row: e, transfer: false })),
        ...changes.indexer_transfers.map((t) => ({ pair: t.pair, row: t, transfer: true })),
      ].sort((a, b) => a.row.block_number - b.row.block_number || a.row.log_index - b.row.log_index);
      for (const { pair, row, transfer } of items) {
        const list = byPair.get(pair) ?? [];
        list.push({ row, transfer });
        byPair.set(pair, list);
      }
      // A pair's entries are built and appended only if someone watches it when its turn comes,
      // after this batch's commit: a stream whose watcher is recorded later reads its snapshot
      // later still, and the batch is in it (explore-streams.ts records the watcher first). A
      // backfill nobody watches thus builds no payloads. Rollbacks are always appended.
      for (const [pair, list] of byPair) {
        feeds.later('explore', async () => {
          if (!(await feeds.watched('clob', chainId, pair))) return;
          await feeds.append(
            'clob',
            chainId,
            pair,
            list.map(({ row, transfer }) => clobEntry(chainId, pair, row, transfer)),
          );
        });
      }
    },

    async exploreReorg(chainId, pairs, point) {
      // Corrective: the rollback, then a fresh snapshot of the rolled-back state (docs/EXPLORE.md), in order after the undone events.
      const rollback = { ancestor_block: point.number, ancestor_hash: point.hash };
      const key = point.key.replace(/[^A-Za-z0-9:_.-]/g, '');
      for (const pair of pairs) feeds.later('explore', () => feeds.append('clob', chainId, pair, [{ block: point.number, key, rollback }]));
    },

    async loans(chainId, changes, crossings) {
      feeds.later('explore_loan', () => loans.batch(chainId, changes, crossings));
    },

    async loansReorg(chainId, point) {
      feeds.later('explore_loan', () => loans.reorg(chainId, point));
    },

    idle: () => feeds.idle(),

    async fades(chainId, fades) {
      const policy = { limit: deps.config.DUTCH_FADE_LIMIT, windowSeconds: deps.config.DUTCH_FADE_WINDOW, cooldownSeconds: deps.config.DUTCH_FADE_COOLDOWN };
      for (const f of fades) {
        await guard('dutch_fade', async () => {
          // The fade's own organization (the winning bid's), as recorded: not a lookup by wallet.
          const status = await fadeStatus(deps.db, { maker: f.winner, organizationId: f.organization_id }, policy, Date.now());
          const payload = {
            quote_id: f.quote_id,
            chain_id: chainId,
            exclusive_ends_at: new Date(f.exclusive_ends_at).toISOString(),
            dutch_fades: { ...status },
          };
          // One fade per quote; a fade undone by a reorg and decided again is the same news.
          await events.publish(topics.rfqMaker(getAddress(f.winner)), 'dutch_fade', payload, { idempotencyKey: `dutch_fade.${f.quote_id}` });
        });
      }
    },
  };
}
