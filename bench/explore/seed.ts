import type { DataSource } from 'typeorm';
import { encodeOptionId } from '../../shared/protocol';

/**
 * Seeds one CLOB the way the indexer would have left it after a long history: 100,000 orders
 * (a fifth open, a fifth cancelled), 1,000,000 fills each with its mint transfer, over 60 days
 * of blocks, and the per-day rollups and series the indexer derives from them. Bulk SQL
 * (generate_series), then VACUUM ANALYZE: the planner sees the real sizes, and the visibility map
 * is set as autovacuum leaves it some time after a bulk write (so index-only scans read no heap).
 */
export const SEED = { orders: 100_000, fills: 1_000_000, series: 20, wallets: 1_000, days: 60 } as const;

const addressSql = (expr: string) => `'0x' || lpad(to_hex((${expr})::bigint), 40, '0')`;

export async function seedClob(db: DataSource, pair: string, opts: { orders?: number; fills?: number } = {}): Promise<{ series: string[]; headBlock: number }> {
  const orders = opts.orders ?? SEED.orders;
  const fills = opts.fills ?? SEED.fills;
  const now = Math.floor(Date.now() / 1000);
  const expiry = now + 30 * 86_400;
  const series = Array.from({ length: SEED.series }, (_, k) =>
    encodeOptionId({ option_type: k % 2 === 0 ? 0 : 1, strike_wad: BigInt(1000 + 100 * k), expiry_timestamp: expiry, start_exercise_timestamp: 0 }).toString(),
  );
  // Orders are placed in blocks 1..orders; fills and cancels follow in blocks after them, 5 fills a block.
  const fillFrom = orders + 1;
  const headBlock = fillFrom + Math.ceil(fills / 5) + 1;
  const secondsPerBlock = (SEED.days * 86_400) / headBlock;
  const ts = (block: string) => `(${now - SEED.days * 86_400} + floor(${block} * ${secondsPerBlock}))::bigint`;
  const hash = (expr: string) => `'0x' || lpad(to_hex((${expr})::bigint), 64, '0')`;

  await db.query(
    `INSERT INTO indexer_pairs (chain_id, address, factory, token0, token1, premium_token, created_block, created_block_hash, created_log_index, tx_hash)
                  VALUES (31337, $1, ${addressSql('1')}, ${addressSql('2')}, ${addressSql('3')}, ${addressSql('3')}, 0, ${hash('0')}, 0, ${hash('0')})`,
    [pair],
  );
  await db.query(
    `INSERT INTO indexer_cursors (chain_id, contract_set, block_number, block_hash, block_timestamp) VALUES (31337, 'bench', $1, ${hash('$1::bigint')}, ${ts('$1::bigint')})`,
    [headBlock],
  );
  await db.query(
    `INSERT INTO indexer_orders (chain_id, pair, order_id, owner, option_id, is_buy, price, amount, remaining, state, placed_block, placed_block_hash, placed_log_index, tx_hash, last_block, last_log_index)
     SELECT 31337, $1, i, ${addressSql('1000 + i % $3')}, ($2::numeric[])[1 + i % ${SEED.series}], i % 2 = 0,
            CASE WHEN i % 2 = 0 THEN 100 + i % 50 ELSE 150 + i % 50 END, 10,
            CASE WHEN i % 5 = 0 THEN 1 + i % 10 ELSE 0 END,
            CASE WHEN i % 5 = 0 THEN 'open' WHEN i % 5 = 1 THEN 'cancelled' ELSE 'filled' END,
            i, ${hash('i')}, 0, ${hash('i')}, i, 0
       FROM generate_series(1, $4::int) i`,
    [pair, series, SEED.wallets, orders],
  );
  const activity = `INSERT INTO indexer_clob_activity (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, pair, kind, option_id, order_id, is_buy, price, amount, remaining, account, counterparty)`;
  await db.query(
    `${activity}
     SELECT 31337, o.placed_block, o.placed_block_hash, ${ts('o.placed_block')}, 0, o.tx_hash, o.pair, 'placed', o.option_id, o.order_id, o.is_buy, o.price, o.amount, o.amount, o.owner, NULL
       FROM indexer_orders o WHERE o.chain_id = 31337 AND o.pair = $1`,
    [pair],
  );
  // Fills in chunks, each with the mint transfer logged just before it (as OptionPair emits them).
  const chunk = 250_000;
  for (let from = 0; from < fills; from += chunk) {
    const to = Math.min(fills, from + chunk) - 1;
    const fillSelect = `
      SELECT j, ${fillFrom} + j / 5 AS block, (j % 5) * 2 AS log, 1 + j % $2::int AS order_id, 1 + j % 10 AS amount,
             ${addressSql('1000 + (j * 7) % $3::int')} AS taker
        FROM generate_series($4::int, $5::int) j`;
    await db.query(
      `${activity}
       SELECT 31337, f.block, ${hash('f.block')}, ${ts('f.block')}, f.log + 1, ${hash('f.j + 1000000000')}, o.pair, 'filled', o.option_id, o.order_id, o.is_buy, o.price,
              f.amount, 0, o.owner, f.taker
         FROM (${fillSelect}) f JOIN indexer_orders o ON o.chain_id = 31337 AND o.pair = $1 AND o.order_id = f.order_id`,
      [pair, orders, SEED.wallets, from, to],
    );
    await db.query(
      `${activity}
       SELECT 31337, f.block, ${hash('f.block')}, ${ts('f.block')}, f.log, ${hash('f.j + 1000000000')}, o.pair, 'transfer', o.option_id, NULL, NULL, NULL,
              f.amount, NULL, '0x0000000000000000000000000000000000000000', CASE WHEN o.is_buy THEN o.owner ELSE f.taker END
         FROM (${fillSelect}) f JOIN indexer_orders o ON o.chain_id = 31337 AND o.pair = $1 AND o.order_id = f.order_id`,
      [pair, orders, SEED.wallets, from, to],
    );
  }
  await db.query(
    `${activity}
     SELECT 31337, ${fillFrom} + o.order_id * 2, ${hash(`${fillFrom} + o.order_id * 2`)}, ${ts(`${fillFrom} + o.order_id * 2`)}, 50, ${hash('o.order_id + 2000000000')}, o.pair, 'cancelled',
            o.option_id, o.order_id, o.is_buy, o.price, 5, 0, o.owner, NULL
       FROM indexer_orders o WHERE o.chain_id = 31337 AND o.pair = $1 AND o.state = 'cancelled'`,
    [pair],
  );
  // What the indexer derives as it writes: series with open interest, per-day rollups of fills and traders.
  await db.query(
    `INSERT INTO indexer_clob_series (chain_id, pair, option_id, open_interest, orders_placed, transfers, first_block)
     SELECT 31337, $1, option_id, sum(amount) FILTER (WHERE kind = 'transfer'), count(*) FILTER (WHERE kind = 'placed'),
            count(*) FILTER (WHERE kind = 'transfer'), min(block_number) FROM indexer_clob_activity
      WHERE chain_id = 31337 AND pair = $1 GROUP BY option_id`,
    [pair],
  );
  const day = `(to_timestamp(block_timestamp) AT TIME ZONE 'UTC')::date`;
  await db.query(
    `INSERT INTO indexer_clob_daily (chain_id, pair, day, option_id, fills, volume, premium_volume)
     SELECT 31337, pair, ${day}, option_id, count(*), sum(amount), sum(amount * price) FROM indexer_clob_activity
      WHERE chain_id = 31337 AND pair = $1 AND kind = 'filled' GROUP BY pair, 3, option_id`,
    [pair],
  );
  await db.query(
    `INSERT INTO indexer_clob_traders (chain_id, pair, day, trader, fills)
     SELECT 31337, pair, day, trader, count(*) FROM (
       SELECT pair, ${day} AS day, account AS trader FROM indexer_clob_activity WHERE chain_id = 31337 AND pair = $1 AND kind = 'filled'
       UNION ALL
       SELECT pair, ${day}, counterparty FROM indexer_clob_activity WHERE chain_id = 31337 AND pair = $1 AND kind = 'filled' AND counterparty <> account
     ) t GROUP BY pair, day, trader`,
    [pair],
  );
  await db.query(`VACUUM ANALYZE`);
  return { series, headBlock };
}
