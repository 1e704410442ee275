import { z } from 'zod';
import { envInt, envList } from './schema-helpers';

/** `chain_id:value` pairs separated by commas, each value an integer in [min, max]; empty = none. */
const envChainMap = (min: number, max: number) =>
  z
    .string()
    .default('')
    .transform((v, ctx) => {
      const out: Record<number, number> = {};
      for (const part of v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0)) {
        const m = /^([1-9][0-9]{0,9}):([0-9]{1,12})$/.exec(part);
        const value = m ? Number(m[2]) : NaN;
        if (!m || Number(m[1]) > 2_147_483_647 || value < min || value > max) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not chain_id:blocks with blocks in ${min}..${max}` });
          return z.NEVER;
        }
        out[Number(m[1])] = value;
      }
      return out;
    });

/**
 * The chain indexer (ROLES=indexer) and what the API needs to judge its health. Ranges are in
 * blocks; every timing is in milliseconds.
 */
export const indexerEnv = {
  /** How often a tailer at the head asks for a new block. Behind the head it does not wait. */
  INDEXER_POLL_INTERVAL_MS: envInt(1000, 10, 600_000),
  /**
   * First `eth_getLogs` span of a backfill. Small, because the density of a history is unknown
   * until the first answer; the span then doubles on each success (10 -> 10,240 in ten ranges)
   * and shrinks on range errors or when a range returns more than the target number of logs.
   */
  INDEXER_INITIAL_BLOCK_RANGE: envInt(10, 1, 10_000_000),
  /** Largest `eth_getLogs` span ever asked for. */
  INDEXER_MAX_BLOCK_RANGE: envInt(100_000, 1, 10_000_000),
  /** The span shrinks when a range returns more logs than this: it bounds the memory of one batch. */
  INDEXER_TARGET_LOGS_PER_RANGE: envInt(10_000, 100, 1_000_000),
  /** Backfill ranges fetched ahead of the one being written (memory stays bounded by this). */
  INDEXER_PREFETCH_RANGES: envInt(2, 0, 16),
  /** Most unfinalized blocks a tailer takes in one realtime step (one transaction). */
  INDEXER_REALTIME_BATCH_BLOCKS: envInt(100, 1, 10_000),
  /** Contract addresses per `eth_getLogs` call; more pairs than this are split over several calls. */
  INDEXER_MAX_ADDRESSES_PER_REQUEST: envInt(500, 1, 10_000),
  /** Backfill starts here on every network; unset, each network starts at its contracts' deployment block. */
  INDEXER_START_BLOCK: z.coerce.number().int().min(0).optional(),
  /** Contract keys that name the pair factory, then the mothership; the first key present wins. */
  INDEXER_FACTORY_KEYS: envList('pair_factory,factory'),
  INDEXER_MOTHERSHIP_KEYS: envList('mothership,rfq'),
  /** Contract keys naming the reference lending market and its price oracle (first present wins; left out of GET /api/networks). */
  INDEXER_LENDING_MARKET_KEYS: envList('margin_lending_market'),
  INDEXER_PRICE_ORACLE_KEYS: envList('margin_price_oracle'),
  /** Contract keys that name the maker BondVault (its deposits and withdrawals are indexed); the first key present wins. */
  INDEXER_BOND_VAULT_KEYS: envList('bond_vault'),
  /** How often the indexer rereads the networks table to start, restart or stop tailers. */
  INDEXER_NETWORKS_REFRESH_MS: envInt(15_000, 100, 3_600_000),
  /**
   * Each network is written by the indexer process holding its lease (a row in indexer_leases).
   * A lease not renewed for this long expires, and a standby process takes the network over.
   */
  INDEXER_LEASE_TTL_MS: envInt(15_000, 200, 3_600_000),
  /**
   * How often a holder renews its leases, and a standby tries to take free or expired ones. At
   * most half the TTL. A network whose holder dies is taken over within TTL + this.
   */
  INDEXER_LEASE_RENEW_MS: envInt(5000, 50, 1_800_000),
  /** How often each tailer writes its status row, whatever it is doing. */
  INDEXER_HEARTBEAT_MS: envInt(2000, 50, 600_000),
  /** The API answers 503 when a network's status row is older than this. */
  INDEXER_STATUS_STALE_MS: envInt(15_000, 100, 3_600_000),
  /** One JSON-RPC request gives up after this long (then it is retried). */
  INDEXER_RPC_TIMEOUT_MS: envInt(10_000, 50, 600_000),
  /** Retries of a failed request (timeouts, 429, 5xx, refused connections), across the network's RPC URLs. */
  INDEXER_RPC_RETRIES: envInt(4, 0, 50),
  /** Backoff between retries: full jitter over base * 2^attempt, capped. */
  INDEXER_RPC_BACKOFF_MS: envInt(100, 1, 60_000),
  INDEXER_RPC_BACKOFF_MAX_MS: envInt(5000, 1, 600_000),
  /** Parallel JSON-RPC requests per network (header batches, address chunks, prefetch). */
  INDEXER_RPC_CONCURRENCY: envInt(8, 1, 256),
  /**
   * A read not answered after max(this, 4x the method's usual latency), at most half of
   * INDEXER_RPC_TIMEOUT_MS, is sent again (another URL first) and the first good answer wins: a
   * backend that answers in seconds costs tens of milliseconds. 0 turns hedging off.
   */
  INDEXER_RPC_HEDGE_MIN_MS: envInt(50, 0, 600_000),
  /** A ws(s) newHeads subscription that leaves a polled head unannounced this long, with no notification, is replaced. */
  INDEXER_WS_SILENCE_MS: envInt(30_000, 100, 3_600_000),
  /**
   * Recent block hashes each tailer keeps linked (its unfinalized window), for chains with no
   * entry in INDEXER_REORG_WINDOW_BY_CHAIN nor a built-in one (docs/INDEXER.md lists those).
   * Independent of a network's `confirmations`, which only decide what is reported as final.
   */
  INDEXER_REORG_WINDOW_BLOCKS: envInt(256, 1, 100_000),
  /** Per-network windows, `chain_id:blocks` pairs separated by commas (`31337:2048,10:4096`); they win over the built-in ones. */
  INDEXER_REORG_WINDOW_BY_CHAIN: envChainMap(1, 100_000),
  /**
   * The hard limit: a reorg whose common ancestor lies more than this many blocks below the
   * indexed tip halts the network (its status names the `ops indexer:resync` command to run).
   * Anything shallower is rolled back and re-synced by itself.
   */
  INDEXER_REORG_MAX_DEPTH: envInt(50_000, 1, 100_000_000),
  /**
   * The standing audit: finalized blocks down to this many below the indexed tip are re-read
   * from the chain and compared with what was written; a difference re-derives from its block.
   */
  INDEXER_AUDIT_DEPTH_BLOCKS: envInt(10_000, 1, 100_000_000),
  /** Blocks the audit re-reads per minute and network (0 turns it off). */
  INDEXER_AUDIT_BLOCKS_PER_MINUTE: envInt(2_000, 0, 10_000_000),
  /** How often the audit takes its next slice (its share of INDEXER_AUDIT_BLOCKS_PER_MINUTE). */
  INDEXER_AUDIT_INTERVAL_MS: envInt(5_000, 50, 600_000),
};

/** Cross-key rule: a holder renews at least twice per TTL, so one slow renewal does not lose the lease. */
export function indexerLeaseProblems(env: { INDEXER_LEASE_TTL_MS: number; INDEXER_LEASE_RENEW_MS: number }): { key: string; message: string }[] {
  return env.INDEXER_LEASE_RENEW_MS * 2 > env.INDEXER_LEASE_TTL_MS
    ? [{ key: 'INDEXER_LEASE_RENEW_MS', message: `must be at most half of INDEXER_LEASE_TTL_MS (${env.INDEXER_LEASE_TTL_MS})` }]
    : [];
}
