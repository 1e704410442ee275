import type { ActivityRow, DailyBatch, SeriesDelta } from '../types';
import { insertMany, type Queryable } from './sql';

/**
 * Writes and rollbacks of Explore's CLOB read models (see the migration ExploreClob1764004000000),
 * listed in `DERIVED_TABLES`. Rollbacks of the aggregates read the activity rows above the
 * rollback point, so they run before the activity's own rollback deletes them.
 */

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * Inserts a batch's activity. Fills and cancels take their order's series and side (and a
 * cancel its price) from the order book, written earlier in the same transaction; an order
 * placed before the indexer's start block leaves them null.
 */
export async function writeActivity(m: Queryable, chainId: number, rows: ActivityRow[]): Promise<void> {
  if (rows.length === 0) return;
  await m.query(
    `INSERT INTO indexer_clob_activity (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, pair, kind,
                                        option_id, order_id, is_buy, price, amount, remaining, account, counterparty)
     SELECT $2, x.block_number, x.block_hash, x.block_timestamp, x.log_index, x.tx_hash, x.pair, x.kind,
            COALESCE(x.option_id, o.option_id), x.order_id, COALESCE(x.is_buy, o.is_buy), COALESCE(x.price, o.price),
            x.amount, x.remaining, x.account, x.counterparty
       FROM json_to_recordset($1::json) AS x(block_number bigint, block_hash text, block_timestamp bigint, log_index integer, tx_hash text,
              pair text, kind text, option_id numeric, order_id numeric, is_buy boolean, price numeric, amount numeric, remaining numeric,
              account text, counterparty text)
       LEFT JOIN indexer_orders o ON x.order_id IS NOT NULL AND o.chain_id = $2 AND o.pair = x.pair AND o.order_id = x.order_id`,
    [JSON.stringify(rows), chainId],
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
