import type { DataSource } from 'typeorm';
import { columnDefinitions, columnNames, idsWhere, pastGrace, type JsonColumns, type Queryable } from '../platform/db';
import { EFFECTIVE_CLOSED_AT, EFFECTIVE_STATE, ON_CHAIN_JOIN } from './order-state';
import type { ExclusiveFillRow, OnChainOrder, OrderRow, OrderState } from './order.types';
import { FILL_STATE_SQL as FS } from './order.sql';

/** An order with its book order (`ORDER_SOURCE`): the columns of an OrderRow plus its on-chain placement. */
const ORDER_COLUMNS = `o.id, o.chain_id, o.owner_address, o.pair, o.premium_token, o.nonce_prefix::text AS nonce_prefix, o.nonce::text AS nonce,
  o.amount::text AS amount, o.intent_hash, o.destination, o.data, ${EFFECTIVE_STATE} AS state, o.expires_at, o.exclusive_fill_id,
  o.created_at, ${EFFECTIVE_CLOSED_AT} AS closed_at, o.fill_tx_hash, o.recorded_by_owner, o.cancel_requested_at,
  i.order_id::text AS pair_order_id, io.remaining::text AS onchain_remaining, io.state AS onchain_state, i.tx_hash AS placed_tx_hash`;

const ORDER_SOURCE = `orders o ${ON_CHAIN_JOIN}`;

type OrderRead = OrderRow & {
  pair_order_id: string | null;
  onchain_remaining: string | null;
  onchain_state: OnChainOrder['state'] | null;
  placed_tx_hash: string | null;
};

/** Splits a read row into the order and its book order. */
function split(r: OrderRead): { order: OrderRow; onChain: OnChainOrder | null } {
  const { pair_order_id, onchain_remaining, onchain_state, placed_tx_hash, ...order } = r;
  const onChain =
    pair_order_id && onchain_state && placed_tx_hash ? { pair_order_id, remaining: onchain_remaining ?? '0', state: onchain_state, placed_tx_hash } : null;
  return { order, onChain };
}

/** An order as read: the row, and its book order once placed on chain. */
export type ReadOrder = ReturnType<typeof split>;

export const FILL_COLUMNS = `id, id_hash, chain_id, pair, maker, reward_destination, order_ids, intent_data_hash, signature, state,
  expire_time, created_at, closed_at, used_tx_hash`;

/** A page position: the last row's creation time and id (newest first). */
export interface PageAfter {
  created_at: string;
  id: string;
}

export interface OrderFilter {
  owner?: string;
  state?: OrderState;
  chain_id?: number;
}

/**
 * An order as its create writes it: the columns the database fills are left out. `recorder_ip`:
 * the hashed client IP bucket of an unconfirmed record (null when the owner recorded it).
 */
export type NewOrderRow = Omit<OrderRow, 'state' | 'created_at' | 'closed_at' | 'fill_tx_hash' | 'exclusive_fill_id' | 'cancel_requested_at'> & {
  recorder_ip: string | null;
};

/** The columns an order's create writes, as a NewOrderRow's JSON carries them (shared/platform/db/json-rows.ts). */
const ORDER_JSON = {
  id: 'uuid',
  chain_id: 'integer',
  owner_address: 'text',
  pair: 'text',
  premium_token: 'text',
  nonce_prefix: 'numeric',
  nonce: 'numeric',
  amount: 'numeric',
  intent_hash: 'text',
  destination: 'jsonb',
  data: 'jsonb',
  expires_at: 'timestamptz',
  recorded_by_owner: 'boolean',
  recorder_ip: 'text',
} as const satisfies JsonColumns<keyof NewOrderRow>;

const ORDER_INSERT_COLUMNS = columnNames(ORDER_JSON);

/**
 * What owner lists show: orders the owner recorded with its own credential, and orders placed on
 * chain (the placement is the owner's own transaction). Records made by anyone else stay
 * visible by id only, so a stranger cannot fill a wallet's list with fakes.
 */
export const CONFIRMED = `(o.recorded_by_owner OR i.order_id IS NOT NULL)`;

/** Queries of orders, exclusive fills and the indexed rows they are judged by. Raw SQL, one round trip each. */
export class OrderRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Inserts an order; answers its created_at, or null when the same intent (chain, intent hash)
   * is already recorded. A shared nonce is no conflict: recording reserves nothing.
   */
  async insertOrder(r: NewOrderRow): Promise<Date | null> {
    const rows: { created_at: Date }[] = await this.ds.query(
      `INSERT INTO orders (${ORDER_INSERT_COLUMNS})
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)
       ON CONFLICT (chain_id, intent_hash) DO NOTHING RETURNING created_at`,
      [
        r.id,
        r.chain_id,
        r.owner_address,
        r.pair,
        r.premium_token,
        r.nonce_prefix,
        r.nonce,
        r.amount,
        r.intent_hash,
        r.destination,
        r.data,
        r.expires_at,
        r.recorded_by_owner,
        r.recorder_ip,
      ],
    );
    return rows[0]?.created_at ?? null;
  }

  /**
   * Inserts many orders in ONE statement (group commit, shared/platform/db/group-commit.ts), the
   * rows sent as one jsonb parameter, as they are held. Answers each order's created_at in the
   * order given, or null where the same intent was already recorded, earlier or earlier in the
   * same batch (the first one given wins: the rows go in their array's order).
   */
  async insertOrders(rs: NewOrderRow[]): Promise<(Date | null)[]> {
    const rows: { id: string; created_at: Date }[] = await this.ds.query(
      `INSERT INTO orders (${ORDER_INSERT_COLUMNS})
       SELECT ${ORDER_INSERT_COLUMNS}
       FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (${columnDefinitions(ORDER_JSON)})) WITH ORDINALITY AS n(${ORDER_INSERT_COLUMNS}, ord)
       ORDER BY ord
       ON CONFLICT (chain_id, intent_hash) DO NOTHING RETURNING id, created_at`,
      [JSON.stringify(rs)],
    );
    const created = new Map(rows.map((r) => [r.id, r.created_at]));
    return rs.map((r) => created.get(r.id) ?? null);
  }

  async findOrder(id: string, m: Queryable = this.ds): Promise<ReadOrder | null> {
    const rows: OrderRead[] = await m.query(`SELECT ${ORDER_COLUMNS} FROM ${ORDER_SOURCE} WHERE o.id = $1`, [id]);
    return rows[0] ? split(rows[0]) : null;
  }

  /**
   * The order already recorded for this intent. When `byOwner`, the owner has now recorded it
   * with its own credential: the record is marked so (it joins the owner's lists).
   */
  async findByIntent(chainId: number, intentHash: string, byOwner: boolean): Promise<ReadOrder | null> {
    if (byOwner)
      await this.ds.query(`UPDATE orders SET recorded_by_owner = true WHERE chain_id = $1 AND intent_hash = $2 AND NOT recorded_by_owner`, [
        chainId,
        intentHash,
      ]);
    const rows: OrderRead[] = await this.ds.query(`SELECT ${ORDER_COLUMNS} FROM ${ORDER_SOURCE} WHERE o.chain_id = $1 AND o.intent_hash = $2`, [
      chainId,
      intentHash,
    ]);
    return rows[0] ? split(rows[0]) : null;
  }

  /** Those of `ids` whose intent no placement on chain has been indexed for (exclusive fills need placed orders). */
  async unplaced(ids: readonly string[]): Promise<string[]> {
    const rows: { id: string }[] = await this.ds.query(
      `SELECT o.id FROM orders o
         LEFT JOIN indexer_order_intents i ON i.chain_id = o.chain_id AND i.intent_hash = o.intent_hash
        WHERE o.id = ANY($1::uuid[]) AND i.order_id IS NULL`,
      [ids],
    );
    return rows.map((r) => r.id);
  }

  async findOrders(ids: readonly string[]): Promise<OrderRow[]> {
    const rows: OrderRead[] = await this.ds.query(`SELECT ${ORDER_COLUMNS} FROM ${ORDER_SOURCE} WHERE o.id = ANY($1::uuid[])`, [ids]);
    return rows.map((r) => split(r).order);
  }

  /** One page of confirmed orders (CONFIRMED), newest first, after `after`. */
  async list(f: OrderFilter, after: PageAfter | null, limit: number): Promise<ReadOrder[]> {
    const where: string[] = [CONFIRMED];
    const params: unknown[] = [];
    const add = (sql: string, v: unknown) => {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (f.owner) add('o.owner_address = ?', f.owner);
    if (f.state) add(`${EFFECTIVE_STATE} = ?`, f.state);
    if (f.chain_id !== undefined) add('o.chain_id = ?', f.chain_id);
    if (after) {
      params.push(after.created_at, after.id);
      where.push(`(o.created_at, o.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(limit);
    const rows: OrderRead[] = await this.ds.query(
      `SELECT ${ORDER_COLUMNS} FROM ${ORDER_SOURCE} WHERE ${where.join(' AND ')}
        ORDER BY o.created_at DESC, o.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(split);
  }

  /** The pair's premium token: the indexer's record of the pair, else null. */
  async premiumTokenOf(chainId: number, pair: string): Promise<`0x${string}` | null> {
    const rows: { premium_token: `0x${string}` }[] = await this.ds.query(`SELECT premium_token FROM indexer_pairs WHERE chain_id = $1 AND address = $2`, [
      chainId,
      pair,
    ]);
    return rows[0]?.premium_token ?? null;
  }

  async insertFill(
    m: Queryable,
    f: Omit<ExclusiveFillRow, 'state' | 'created_at' | 'closed_at' | 'used_tx_hash'> & { organization_id?: string | null },
  ): Promise<Date> {
    const rows: { created_at: Date }[] = await m.query(
      `INSERT INTO exclusive_fills (id, id_hash, chain_id, pair, maker, reward_destination, order_ids, intent_data_hash, signature, expire_time, organization_id)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) RETURNING created_at`,
      [
        f.id,
        f.id_hash,
        f.chain_id,
        f.pair,
        f.maker,
        f.reward_destination,
        f.order_ids,
        f.intent_data_hash,
        f.signature,
        f.expire_time,
        f.organization_id ?? null,
      ],
    );
    return rows[0].created_at;
  }

  /**
   * When the latest exclusive fill of this organization (a wallet without one: that wallet) over
   * any of `orderIds` ended unused (its time passed and the chain shows no use), within the last
   * `cooldownSeconds`; null for none.
   */
  async lastUnusedFillOver(scope: { organizationId: string | null; maker: string }, orderIds: string[], cooldownSeconds: number): Promise<Date | null> {
    const who = scope.organizationId ? `organization_id = $1::uuid` : `organization_id IS NULL AND lower(maker) = lower($1)`;
    const rows: { t: Date | null }[] = await this.ds.query(
      `SELECT max(expire_time) AS t FROM exclusive_fills
        WHERE ${who} AND order_ids && $2::uuid[] AND state <> 'used'
          AND expire_time <= now() AND expire_time > now() - make_interval(secs => $3)`,
      [scope.organizationId ?? scope.maker, orderIds, cooldownSeconds],
    );
    return rows[0]?.t ? new Date(rows[0].t) : null;
  }

  async findFill(id: string): Promise<ExclusiveFillRow | null> {
    const rows: ExclusiveFillRow[] = await this.ds.query(`SELECT ${FILL_COLUMNS} FROM exclusive_fills WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Records that the maker heard the fill in its current state. */
  async markFillPublished(id: string, state: string): Promise<void> {
    await this.ds.query(`UPDATE exclusive_fills SET published_state = $2 WHERE id = $1`, [id, state]);
  }

  /**
   * Active exclusive fills with when they end (unix ms), soonest first: the expiry jobs a Redis
   * that lost its data no longer holds, rebuilt from here (workers/redis-loss.ts). Orders have
   * no job to rebuild: they read expired at their time (EFFECTIVE_STATE) and the records sweeper
   * writes it down.
   */
  async activeFillExpiries(limit: number): Promise<{ id: string; at: number }[]> {
    const rows: { id: string; at: string }[] = await this.ds.query(
      `SELECT id, (extract(epoch FROM expire_time) * 1000)::bigint::text AS at FROM exclusive_fills WHERE state = ${FS.active} ORDER BY expire_time LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ id: r.id, at: Number(r.at) }));
  }

  /** What the orders sweeper redoes: fills past their time, fills whose state the maker has not heard. */
  async overdue(graceSeconds: number, limit: number): Promise<{ fills: string[]; unpublished: string[] }> {
    const ids = (from: string, where: string, orderBy: string) => idsWhere(this.ds, { from, where, orderBy }, graceSeconds, limit);
    const [fills, unpublished] = await Promise.all([
      ids('exclusive_fills', `state = ${FS.active} AND ${pastGrace('expire_time', '<=')}`, 'expire_time'),
      ids('exclusive_fills', `published_state IS DISTINCT FROM state AND ${pastGrace('created_at', '<=')}`, 'created_at'),
    ]);
    return { fills, unpublished };
  }
}
