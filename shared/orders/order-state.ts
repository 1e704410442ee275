import { updatedRows as updated, type Queryable } from '../platform/db';
import type { OrderState } from './order.types';
import { EXCLUSIVE_FILL_STATES, ORDER_STATES } from '../../wire/src/order.wire';
import { FILL_STATE_SQL as FS, ON_CHAIN_STATE_SQL as CS, ORDER_STATE_SQL as OS } from './order.sql';

/**
 * The one owner of the states of orders and exclusive fills: every write of `orders.state`,
 * `orders.exclusive_fill_id` and `exclusive_fills.state` is in this file.
 *
 *   order:           expire (clock)              cancel (owner, not held; when held: pending until the fill expires)
 *       open ─────────────────────────▶ expired   open ──────────────▶ cancelled
 *        │  exclusive fill used (indexer)
 *        └──────────────────────────▶ filled ──reorg──▶ open | expired
 *   plus, read through EFFECTIVE_STATE: an order whose book order the chain filled or
 *   cancelled reads filled or cancelled, and an open order past its time reads expired (the
 *   clock's transition is read at its exact time; the records sweeper writes it down in batches).
 *
 *   exclusive fill:  expire (clock; its orders are released)
 *       active ──────────────────────▶ expired
 *        │ ExclusiveFillUsed seen (indexer; also from expired: the chain is the record)
 *        └──────────────────────────▶ used ──reorg──▶ active | expired
 *
 * Each transition is one statement guarded by the state it leaves, so a retried job or a block
 * applied twice changes nothing twice. Each takes the caller's connection or transaction (the
 * indexer moves orders in the same transaction as the rows that justify it).
 */

/**
 * The book order an order `o` became on chain, if its owner placed it: `i` (the placement) and
 * `io` (the book order's latest state). Orders are matched by intent hash.
 */
export const ON_CHAIN_JOIN = `LEFT JOIN indexer_order_intents i ON i.chain_id = o.chain_id AND i.intent_hash = o.intent_hash
       LEFT JOIN indexer_orders io ON io.chain_id = i.chain_id AND io.pair = i.pair AND io.order_id = i.order_id`;

/**
 * An order's state as clients see it: the stored state, except that an order whose book order
 * the chain filled or cancelled outside an exclusive fill reads as filled or cancelled (the chain
 * is the record, over the clock's expiry and the API cancel). Derived on read from the indexer's rows, a reorg that removes
 * the book order's fill or cancel undoes it with nothing to revert here. An open order whose
 * time has come reads expired from that instant: no job per order moves it (a record anyone may
 * make must not cost a job), the records sweeper writes the expiry down later (`expireDueOrders`).
 */
export const EFFECTIVE_STATE = `CASE WHEN o.state <> ${OS.filled} AND io.state IN (${CS.filled}, ${CS.cancelled}) THEN io.state
  WHEN o.state = ${OS.open} AND o.expires_at <= now() THEN ${OS.expired} ELSE o.state END`;

/** `closed_at` as clients see it: an order that reads expired by the clock closed at its time, as the sweeper will write. */
export const EFFECTIVE_CLOSED_AT = `CASE WHEN o.state = ${OS.open} AND o.expires_at <= now() AND (io.state IS NULL OR io.state NOT IN (${CS.filled}, ${CS.cancelled}))
  THEN o.expires_at ELSE o.closed_at END`;

/** An order the caller may claim for a fill, as read under its row lock. */
export interface LockedOrder {
  id: string;
  chain_id: number;
  pair: `0x${string}`;
  premium_token: `0x${string}`;
  state: OrderState;
  expires_at: Date;
  intent_hash: `0x${string}`;
  /** The active, unexpired fill holding it, if any. */
  held_by: string | null;
  /** Its owner's cancel waits for a fill to end: no new fill over it. */
  cancel_pending: boolean;
}

/**
 * Locks the orders in id order (two racing fills over overlapping sets queue on the first
 * shared row instead of deadlocking), then reads what a claim must check. Inside a transaction.
 * Two statements on purpose: under READ COMMITTED a statement that waited for a row lock sees the
 * row's new version but keeps its own snapshot for everything else, so a fill committed by the
 * transaction it waited for would be invisible to a join in the same statement. The second
 * statement takes a fresh snapshot, after every lock is held.
 */
export async function lockOrders(m: Queryable, ids: readonly string[]): Promise<LockedOrder[]> {
  await m.query(`SELECT id FROM orders WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [ids]);
  return m.query(
    `SELECT o.id, o.chain_id, o.pair, o.premium_token, ${EFFECTIVE_STATE} AS state, o.expires_at, o.intent_hash,
            CASE WHEN f.state = ${FS.active} AND f.expire_time > now() THEN f.id END AS held_by,
            o.cancel_requested_at IS NOT NULL AS cancel_pending
       FROM orders o
       ${ON_CHAIN_JOIN}
       LEFT JOIN exclusive_fills f ON f.id = o.exclusive_fill_id
      WHERE o.id = ANY($1::uuid[])
      ORDER BY o.id`,
    [ids],
  );
}

/** Puts locked orders under fill `fillId` (the caller checked each is open and free). */
export async function holdOrders(m: Queryable, fillId: string, ids: readonly string[]): Promise<void> {
  await m.query(`UPDATE orders SET exclusive_fill_id = $1 WHERE id = ANY($2::uuid[]) AND state = ${OS.open}`, [fillId, ids]);
}

/** open -> cancelled by its owner, unless its time has come or an active exclusive fill holds it. Returns whether this call changed it. */
export async function cancelOrder(m: Queryable, id: string): Promise<boolean> {
  const rows = await updated<{ id: string }>(
    m,
    `UPDATE orders o SET state = ${OS.cancelled}, closed_at = now()
      WHERE o.id = $1 AND o.state = ${OS.open} AND o.expires_at > now()
        AND NOT EXISTS (SELECT 1 FROM exclusive_fills f WHERE f.id = o.exclusive_fill_id AND f.state = ${FS.active} AND f.expire_time > now())
      RETURNING o.id`,
    [id],
  );
  return rows.length > 0;
}

/**
 * The owner's cancel of an open order a live exclusive fill holds: recorded now (no new fill is
 * granted over it), applied when the fill ends (expireExclusiveFill). Returns whether it is pending.
 */
export async function requestCancel(m: Queryable, id: string): Promise<boolean> {
  const rows = await updated<{ id: string }>(
    m,
    `UPDATE orders o SET cancel_requested_at = COALESCE(o.cancel_requested_at, now())
      WHERE o.id = $1 AND o.state = ${OS.open} AND o.expires_at > now()
        AND EXISTS (SELECT 1 FROM exclusive_fills f WHERE f.id = o.exclusive_fill_id AND f.state = ${FS.active} AND f.expire_time > now())
      RETURNING o.id`,
    [id],
  );
  return rows.length > 0;
}

/**
 * open -> expired once its time has passed, closed at that time (what clients read from then on:
 * EFFECTIVE_STATE). Returns whether this call changed it.
 */
export async function expireOrder(m: Queryable, id: string): Promise<boolean> {
  const rows = await updated<{ id: string }>(
    m,
    `UPDATE orders SET state = ${OS.expired}, closed_at = expires_at WHERE id = $1 AND state = ${OS.open} AND expires_at <= now() RETURNING id`,
    [id],
  );
  return rows.length > 0;
}

/**
 * Writes down the expiry of up to `limit` open orders whose time has come, soonest first, in one
 * statement; rows another sweeper holds are left to it. Answers how many this call expired.
 */
export async function expireDueOrders(m: Queryable, limit: number): Promise<number> {
  const rows = await updated<{ id: string }>(
    m,
    `UPDATE orders o SET state = ${OS.expired}, closed_at = o.expires_at
      WHERE o.id IN (SELECT id FROM orders WHERE state = ${OS.open} AND expires_at <= now() ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        AND o.state = ${OS.open}
      RETURNING o.id`,
    [limit],
  );
  return rows.length;
}

/**
 * active -> expired once its time has passed; its open orders are free again, and those whose
 * owner cancelled during the fill are cancelled now. Returns whether this call changed it.
 */
export async function expireExclusiveFill(m: Queryable, id: string): Promise<boolean> {
  // A SELECT at the top: the driver answers plain rows (no affected count).
  const rows: { id: string }[] = await m.query(
    `WITH f AS (
       UPDATE exclusive_fills SET state = ${FS.expired}, closed_at = now() WHERE id = $1 AND state = ${FS.active} AND expire_time <= now() RETURNING id
     ), released AS (
       UPDATE orders SET exclusive_fill_id = NULL,
              state = CASE WHEN cancel_requested_at IS NOT NULL THEN ${OS.cancelled} ELSE state END,
              closed_at = CASE WHEN cancel_requested_at IS NOT NULL THEN now() ELSE closed_at END
        WHERE exclusive_fill_id IN (SELECT id FROM f) AND state = ${OS.open}
     )
     SELECT id FROM f`,
    [id],
  );
  return rows.length > 0;
}

/** A use of an exclusive fill the indexer saw (ExclusiveFillUsed). */
export interface FillUse {
  exclusive_fill_id_hash: string;
  tx_hash: string;
  block_number: number;
}

/**
 * active | expired -> used, and the fill's orders -> filled, for the uses of `chainId` seen in a
 * batch. An expired fill is marked used too: the pair checked its expiry at fill time, so a use
 * seen after the expiry job ran happened in time and the reader of the chain was merely behind.
 */
export async function markFillsUsed(m: Queryable, chainId: number, uses: readonly FillUse[]): Promise<void> {
  if (uses.length === 0) return;
  await m.query(
    `WITH u AS (
       SELECT * FROM unnest($2::text[], $3::text[], $4::bigint[]) AS u(id_hash, tx_hash, block_number)
     ), f AS (
       UPDATE exclusive_fills f SET state = ${FS.used}, closed_at = now(), used_block = u.block_number, used_tx_hash = u.tx_hash
         FROM u WHERE f.chain_id = $1 AND f.id_hash = u.id_hash AND f.state IN (${FS.active}, ${FS.expired})
       RETURNING f.id, f.order_ids, u.tx_hash, u.block_number
     )
     UPDATE orders o SET state = ${OS.filled}, closed_at = now(), closed_block = f.block_number, fill_tx_hash = f.tx_hash, exclusive_fill_id = f.id
       FROM f WHERE o.id = ANY(f.order_ids) AND o.state IN (${OS.open}, ${OS.expired})`,
    [chainId, uses.map((u) => u.exclusive_fill_id_hash), uses.map((u) => u.tx_hash), uses.map((u) => u.block_number)],
  );
}

/**
 * Undoes what chain events above block `at` did: fills used there are active again (expired
 * when their time has passed, and then their orders are free); what still stands is re-derived
 * by the next batch.
 */
export async function revertUsedFills(m: Queryable, chainId: number, at: number): Promise<void> {
  await m.query(
    `UPDATE exclusive_fills SET state = CASE WHEN expire_time > now() THEN ${FS.active} ELSE ${FS.expired} END,
            closed_at = CASE WHEN expire_time > now() THEN NULL ELSE now() END, used_block = NULL, used_tx_hash = NULL
      WHERE chain_id = $1 AND used_block > $2`,
    [chainId, at],
  );
}

/** The orders half of the undo (runs after the fills'): orders closed above `at` are open again, or expired. */
export async function reopenChainClosedOrders(m: Queryable, chainId: number, at: number): Promise<void> {
  await m.query(
    `UPDATE orders o SET state = CASE WHEN o.expires_at > now() THEN ${OS.open} ELSE ${OS.expired} END,
            closed_at = CASE WHEN o.expires_at > now() THEN NULL ELSE now() END, closed_block = NULL, fill_tx_hash = NULL,
            exclusive_fill_id = CASE WHEN f.state = ${FS.active} THEN o.exclusive_fill_id END
       FROM orders o2 LEFT JOIN exclusive_fills f ON f.id = o2.exclusive_fill_id
      WHERE o.id = o2.id AND o.chain_id = $1 AND o.closed_block > $2`,
    [chainId, at],
  );
}

/** The states a caller may filter a list by: the lists of order.wire.ts. */
export { EXCLUSIVE_FILL_STATES, ORDER_STATES };
