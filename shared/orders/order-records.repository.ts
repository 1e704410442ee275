import { createHash } from 'node:crypto';
import type { Queryable } from '../platform/db';
import { ORDER_STATE_SQL as OS } from './order.sql';

/** The indexed placement of order `o` (its owner put the intent in the book on chain). */
const PLACED = `EXISTS (SELECT 1 FROM indexer_order_intents i WHERE i.chain_id = o.chain_id AND i.intent_hash = o.intent_hash)`;

/**
 * A record nobody confirmed: recorded without the owner's own credential and not placed on chain
 * (`placement: "unconfirmed"`), nor held by an exclusive fill. `retained` records were seen placed.
 */
const UNCONFIRMED = `NOT o.recorded_by_owner AND NOT o.retained AND o.exclusive_fill_id IS NULL AND NOT ${PLACED}`;

/**
 * The key the per-IP cap counts a record under: the sha-256 of the client IP bucket (an IPv4
 * address, an IPv6 /64; api/auth/rate-limit.ts ipBucket). A pseudonym, not a secret: the IPv4
 * space is small enough to hash whole.
 */
export function recorderKey(ipBucket: string): string {
  return createHash('sha256').update(ipBucket).digest('hex');
}

/** What one retention batch did: rows it looked at, deleted, and kept for good (found placed on chain, or named by a fill). */
export interface SweptBatch {
  scanned: number;
  deleted: number;
  kept: number;
}

/** Which records a retention batch looks at, oldest first: by when they were recorded, or by when they closed. */
const RETENTION = {
  /** Records nobody confirmed, `retention` after they were recorded. */
  unconfirmed: { where: `NOT o.recorded_by_owner AND o.created_at < now() - make_interval(secs => $1)`, orderBy: 'o.created_at' },
  /** Records the owner made itself, never placed, `retention` after they closed (expired or cancelled). */
  own_closed: {
    where: `o.recorded_by_owner AND o.state IN (${OS.expired}, ${OS.cancelled}) AND o.closed_at < now() - make_interval(secs => $1)`,
    orderBy: 'o.closed_at',
  },
} as const;

export type RetentionKind = keyof typeof RETENTION;

/**
 * The bounds on order records anyone may make (docs/ORDERS.md, "Records nobody confirmed"): the
 * per-owner and per-IP caps, applied after each create, and retention, applied by the records
 * sweeper. Raw SQL; rows another statement holds are skipped (`SKIP LOCKED`), so concurrent
 * creates and sweepers never wait on each other or deadlock, and a row skipped now is taken by
 * whoever holds it or by the next pass.
 */
export class OrderRecords {
  constructor(private readonly db: Queryable) {}

  /**
   * Deletes the oldest unconfirmed records of `owners` beyond `perOwner`, and of the recorder
   * keys `ips` beyond `perIp` (newest kept, by created_at then id). Answers how many each cap evicted.
   */
  async trim(owners: readonly string[], ips: readonly string[], caps: { perOwner: number; perIp: number }): Promise<{ owner: number; ip: number }> {
    if (owners.length === 0 && ips.length === 0) return { owner: 0, ip: 0 };
    const rows: { cap: 'owner' | 'ip'; n: number }[] = await this.db.query(
      `WITH over AS (
         SELECT id, 'owner' AS cap FROM (
           SELECT o.id, row_number() OVER (PARTITION BY o.owner_address ORDER BY o.created_at DESC, o.id DESC) AS n
             FROM orders o WHERE o.owner_address = ANY($1::text[]) AND ${UNCONFIRMED}) r WHERE n > $3
         UNION ALL
         SELECT id, 'ip' AS cap FROM (
           SELECT o.id, row_number() OVER (PARTITION BY o.recorder_ip ORDER BY o.created_at DESC, o.id DESC) AS n
             FROM orders o WHERE o.recorder_ip = ANY($2::text[]) AND ${UNCONFIRMED}) r WHERE n > $4
       ), locked AS (
         SELECT o.id FROM orders o
          WHERE o.id IN (SELECT id FROM over) AND NOT o.recorded_by_owner AND NOT o.retained AND o.exclusive_fill_id IS NULL
          FOR UPDATE SKIP LOCKED
       ), gone AS (
         DELETE FROM orders d USING locked WHERE d.id = locked.id RETURNING d.id
       )
       SELECT c.cap, count(*)::int AS n FROM gone JOIN (SELECT DISTINCT ON (id) id, cap FROM over ORDER BY id, cap DESC) c ON c.id = gone.id GROUP BY c.cap`,
      [owners, ips, caps.perOwner, caps.perIp],
    );
    return { owner: rows.find((r) => r.cap === 'owner')?.n ?? 0, ip: rows.find((r) => r.cap === 'ip')?.n ?? 0 };
  }

  /**
   * One retention batch of `kind`, oldest first, up to `limit` rows past `retentionSeconds`: each
   * is deleted, unless the chain shows it placed or a fill names it, in which case it is kept for
   * good (`retained`, which also takes it out of every later scan).
   */
  async retentionBatch(kind: RetentionKind, retentionSeconds: number, limit: number): Promise<SweptBatch> {
    const r = RETENTION[kind];
    const [row]: SweptBatch[] = await this.db.query(
      `WITH c AS (
         SELECT o.id, (${PLACED} OR o.exclusive_fill_id IS NOT NULL) AS keep
           FROM orders o
          WHERE NOT o.retained AND ${r.where}
          ORDER BY ${r.orderBy} LIMIT $2
          FOR UPDATE OF o SKIP LOCKED
       ), kept AS (
         UPDATE orders SET retained = true WHERE id IN (SELECT id FROM c WHERE keep) RETURNING id
       ), gone AS (
         DELETE FROM orders WHERE id IN (SELECT id FROM c WHERE NOT keep) RETURNING id
       )
       SELECT (SELECT count(*) FROM c)::int AS scanned, (SELECT count(*) FROM gone)::int AS deleted, (SELECT count(*) FROM kept)::int AS kept`,
      [retentionSeconds, limit],
    );
    return row;
  }
}
