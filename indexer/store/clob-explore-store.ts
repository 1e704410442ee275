import type { BlockSpan, DailyBatch, SeriesDelta } from '../types';
import { insertMany, type Queryable } from './sql';

/**
 * Writes and rollbacks of Explore's CLOB read models (see the migration ExploreClob1764004000000),
 * listed in `DERIVED_TABLES`. Rollbacks of the aggregates read the activity rows above the
 * rollback point, so they run before the activity's own rollback deletes them.
 */

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * Inserts a batch's activity, derived from the order events and transfers the batch wrote
 * earlier in the same transaction (the blocks of `span` hold that batch's rows only: each block
 * is written by one batch, and a rollback deletes its rows before it is written again). Nothing
 * is sent twice over the wire, and Postgres reads the rows it has just written from its cache.
 * Fills and cancels take their order's series and side (and a cancel its price) from the order
 * book, written earlier in the same transaction; an order placed before the indexer's start
 * block leaves them null. The arguments are the stored events' (`args`, the ABI's names).
 */
export async function writeActivity(m: Queryable, chainId: number, span: BlockSpan | null): Promise<void> {
  if (!span) return;
  await m.query(
    `INSERT INTO indexer_clob_activity (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, pair, kind,
                                        option_id, order_id, is_buy, price, amount, remaining, account, counterparty)
     SELECT e.chain_id, e.block_number, e.block_hash, e.block_timestamp, e.log_index, e.tx_hash, e.address,
            CASE e.event_name WHEN 'OrderPlaced' THEN 'placed' WHEN 'OrderFilled' THEN 'filled' ELSE 'cancelled' END,
            COALESCE((e.args->>'id')::numeric, o.option_id),
            (e.args->>'orderId')::numeric,
            CASE WHEN e.event_name = 'OrderPlaced' THEN (e.args->>'isBuy')::boolean ELSE o.is_buy END,
            COALESCE((e.args->>'price')::numeric, o.price),
            (e.args->>CASE WHEN e.event_name = 'OrderCancelled' THEN 'remaining' ELSE 'amount' END)::numeric,
            CASE e.event_name WHEN 'OrderPlaced' THEN (e.args->>'amount')::numeric WHEN 'OrderFilled' THEN (e.args->>'remaining')::numeric ELSE 0 END,
            e.args->>'owner',
            e.args->>'filler'
       FROM indexer_events e
       LEFT JOIN indexer_orders o ON e.event_name <> 'OrderPlaced' AND o.chain_id = e.chain_id AND o.pair = e.address
                                  AND o.order_id = (e.args->>'orderId')::numeric
      WHERE e.chain_id = $1 AND e.block_number BETWEEN $2 AND $3 AND e.event_name IN ('OrderPlaced', 'OrderFilled', 'OrderCancelled')
     UNION ALL
     SELECT t.chain_id, t.block_number, t.block_hash, t.block_timestamp, t.log_index, t.tx_hash, t.pair, 'transfer',
            t.option_id, NULL, NULL, NULL, t.amount, NULL, t.sender, t.receiver
       FROM indexer_transfers t
      WHERE t.chain_id = $1 AND t.block_number BETWEEN $2 AND $3`,
    [chainId, span.from, span.to],
  );
}

/** Adds each series the batch touched (keeping its first block) and its open-interest change. */
export async function writeSeries(m: Queryable, chainId: number, rows: SeriesDelta[]): Promise<void> {
  await insertMany(
    m,
    'indexer_clob_series',
    rows,
    [
      { name: 'pair', type: 'text' },
      { name: 'option_id', type: 'numeric' },
      { name: 'open_interest', type: 'numeric', value: (r) => r.oi_delta },
      { name: 'orders_placed', type: 'integer' },
      { name: 'transfers', type: 'integer' },
      { name: 'first_block', type: 'bigint' },
    ],
    {
      constants: [{ name: 'chain_id', value: chainId, type: 'integer' }],
      suffix: `ON CONFLICT (chain_id, pair, option_id) DO UPDATE
               SET open_interest = indexer_clob_series.open_interest + EXCLUDED.open_interest,
                   orders_placed = indexer_clob_series.orders_placed + EXCLUDED.orders_placed,
                   transfers = indexer_clob_series.transfers + EXCLUDED.transfers`,
    },
  );
}

/** Adds a batch's fills to the per-day rollups of series and traders. */
export async function writeDaily(m: Queryable, chainId: number, batch: DailyBatch): Promise<void> {
  const constants = [{ name: 'chain_id', value: chainId, type: 'integer' }];
  await insertMany(
    m,
    'indexer_clob_daily',
    batch.days,
    [
      { name: 'pair', type: 'text' },
      { name: 'day', type: 'date' },
      { name: 'option_id', type: 'numeric' },
      { name: 'fills', type: 'integer' },
      { name: 'volume', type: 'numeric' },
      { name: 'premium_volume', type: 'numeric' },
    ],
    {
      constants,
      suffix: `ON CONFLICT (chain_id, pair, day, option_id) DO UPDATE
               SET fills = indexer_clob_daily.fills + EXCLUDED.fills, volume = indexer_clob_daily.volume + EXCLUDED.volume,
                   premium_volume = indexer_clob_daily.premium_volume + EXCLUDED.premium_volume`,
    },
  );
  await insertMany(
    m,
    'indexer_clob_traders',
    batch.traders,
    [
      { name: 'pair', type: 'text' },
      { name: 'day', type: 'date' },
      { name: 'trader', type: 'text' },
      { name: 'fills', type: 'integer' },
    ],
    { constants, suffix: `ON CONFLICT (chain_id, pair, day, trader) DO UPDATE SET fills = indexer_clob_traders.fills + EXCLUDED.fills` },
  );
}

/** Series first seen above `at` go; the others lose the open interest, placements and transfers above `at`. */
export async function rollbackSeries(m: Queryable, chainId: number, at: number): Promise<void> {
  await m.query(`DELETE FROM indexer_clob_series WHERE chain_id = $1 AND first_block > $2`, [chainId, at]);
  await m.query(
    `UPDATE indexer_clob_series s
        SET open_interest = s.open_interest - g.d, orders_placed = s.orders_placed - g.placed, transfers = s.transfers - g.transfers
       FROM (SELECT pair, option_id,
                    sum(CASE WHEN kind <> 'transfer' OR account = counterparty THEN 0 WHEN account = $3 THEN amount WHEN counterparty = $3 THEN -amount ELSE 0 END) AS d,
                    count(*) FILTER (WHERE kind = 'placed')::int AS placed,
                    count(*) FILTER (WHERE kind = 'transfer')::int AS transfers
               FROM indexer_clob_activity
              WHERE chain_id = $1 AND block_number > $2 AND kind IN ('placed', 'transfer')
              GROUP BY pair, option_id) g
      WHERE s.chain_id = $1 AND s.pair = g.pair AND s.option_id = g.option_id`,
    [chainId, at, ZERO_ADDRESS],
  );
}

/** Subtracts the fills above `at` from their days; rows left with no fill go. */
export async function rollbackDaily(m: Queryable, chainId: number, at: number): Promise<void> {
  await m.query(
    `UPDATE indexer_clob_daily d SET fills = d.fills - g.fills, volume = d.volume - g.volume, premium_volume = d.premium_volume - g.premium
       FROM (SELECT pair, (to_timestamp(block_timestamp) AT TIME ZONE 'UTC')::date AS day, option_id,
                    count(*)::int AS fills, sum(amount) AS volume, sum(amount * price) AS premium
               FROM indexer_clob_activity
              WHERE chain_id = $1 AND block_number > $2 AND kind = 'filled'
              GROUP BY 1, 2, 3) g
      WHERE d.chain_id = $1 AND d.pair = g.pair AND d.day = g.day AND d.option_id = g.option_id`,
    [chainId, at],
  );
  await m.query(`DELETE FROM indexer_clob_daily WHERE chain_id = $1 AND fills <= 0`, [chainId]);
}

/** Subtracts the fills above `at` from their traders' days; trader-days left with no fill go. */
export async function rollbackTraders(m: Queryable, chainId: number, at: number): Promise<void> {
  await m.query(
    `UPDATE indexer_clob_traders t SET fills = t.fills - g.fills
       FROM (SELECT pair, day, trader, count(*)::int AS fills FROM (
               SELECT pair, (to_timestamp(block_timestamp) AT TIME ZONE 'UTC')::date AS day, account AS trader
                 FROM indexer_clob_activity WHERE chain_id = $1 AND block_number > $2 AND kind = 'filled'
               UNION ALL
               SELECT pair, (to_timestamp(block_timestamp) AT TIME ZONE 'UTC')::date, counterparty
                 FROM indexer_clob_activity WHERE chain_id = $1 AND block_number > $2 AND kind = 'filled' AND counterparty <> account
             ) f GROUP BY 1, 2, 3) g
      WHERE t.chain_id = $1 AND t.pair = g.pair AND t.day = g.day AND t.trader = g.trader`,
    [chainId, at],
  );
  await m.query(`DELETE FROM indexer_clob_traders WHERE chain_id = $1 AND fills <= 0`, [chainId]);
}
