import type { DataSource } from 'typeorm';
import { recomputeHealth } from '../../indexer/store/loan-writer';

/** The bench network's tokens: addresses, symbols, decimals and USD prices (18 decimals). */
export const BENCH_TOKENS = [
  { address: '0x5FbDB2315678afecb367f032d93F642f64180aa3', symbol: 'WETH', decimals: 18, price: 3000n },
  { address: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', symbol: 'USDC', decimals: 6, price: 1n },
  { address: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0', symbol: 'WBTC', decimals: 8, price: 60_000n },
  { address: '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9', symbol: 'MEME', decimals: 18, price: 0n },
] as const;
export const BENCH_MARKET = '0x8A791620dd6260079BF849Dc5567aDC3F2FdC318';
/** A borrower with loans, for the filtered routes. */
export const BENCH_BORROWER = '0x00000000000000000000000000000000000B0007';

/**
 * `loans` loans and `events` loan events (each loan's opening plus the rest spread over them),
 * written by bulk SQL in the shapes the indexer writes, with 400 price updates; then every
 * loan's health computed by the indexer's own statement. 5,000 borrowers, 500 lenders; a fifth
 * of the loans closed.
 */
export async function seedLoans(ds: DataSource, loans: number, events: number): Promise<void> {
  const [weth, usdc, wbtc] = BENCH_TOKENS;
  const hash = `'0x' || lpad(to_hex(g), 64, '0')`;
  // Prices: 100 updates per priced token, the last one at the listed price.
  await ds.query(
    `INSERT INTO indexer_prices (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, oracle, token, price_wad, decimals)
     SELECT 31337, g, ${hash}, 1700000000 + g * 12, t.i, ${hash}, $1, t.token, trunc(t.price * (1000000000000000000::numeric) * (0.9 + 0.1 * g / 100.0)::numeric(10,4)), t.decimals
       FROM generate_series(1, 100) g
       CROSS JOIN (VALUES (0, $2, $3::numeric, 18), (1, $4, $5::numeric, 6), (2, $6, $7::numeric, 8)) AS t(i, token, price, decimals)`,
    [BENCH_MARKET, weth.address, String(weth.price), usdc.address, String(usdc.price), wbtc.address, String(wbtc.price)],
  );
  const borrower = `CASE WHEN g % 5000 = 7 THEN '${BENCH_BORROWER}' ELSE '0x' || lpad(to_hex(100000 + g % 5000), 40, '0') END`;
  await ds.query(
    `INSERT INTO indexer_loans (chain_id, loan_id, market, borrower, lender, collateral_token, collateral_amount, debt_token, principal, principal_outstanding,
       interest_paid, rate_bps, threshold_bps, maturity, state, opened_block, opened_block_hash, opened_log_index, opened_at, tx_hash, last_block, last_log_index, closed_at)
     SELECT 31337, g, $1, ${borrower}, '0x' || lpad(to_hex(900000 + g % 500), 40, '0'),
            CASE WHEN g % 3 = 0 THEN $3 ELSE $2 END,
            CASE WHEN g % 3 = 0 THEN (1000000 + g % 9000000)::numeric ELSE (1 + g % 20)::numeric * 100000000000000000 END,
            $4, (500 + g % 4000)::numeric * 1000000, CASE WHEN g % 5 = 0 THEN 0 ELSE (400 + g % 3000)::numeric * 1000000 END,
            0, 300 + g % 900, 8000, 1800000000, CASE WHEN g % 10 = 0 THEN 'liquidated' WHEN g % 5 = 0 THEN 'repaid' ELSE 'active' END,
            200 + g, ${hash}, 0, 1700002400 + g * 12, ${hash}, 200 + g, 0, CASE WHEN g % 5 = 0 THEN 1700002400 + g * 12 END
       FROM generate_series(1, $5::int) g`,
    [BENCH_MARKET, weth.address, wbtc.address, usdc.address, loans],
  );
  // Each loan's opening, then the rest of the events on loans chosen by a stride.
  await ds.query(
    `INSERT INTO indexer_loan_events (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, market, loan_id, kind, actor, borrower, lender,
       collateral_token, debt_token, collateral_delta, collateral_after, principal_delta, principal_after, interest_paid)
     SELECT 31337, l.opened_block, l.opened_block_hash, l.opened_at, 0, l.tx_hash, l.market, l.loan_id, 'opened', l.borrower, l.borrower, l.lender,
            l.collateral_token, l.debt_token, l.collateral_amount, l.collateral_amount, l.principal, l.principal, 0
       FROM indexer_loans l WHERE l.chain_id = 31337`,
  );
  await ds.query(
    `INSERT INTO indexer_loan_events (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, market, loan_id, kind, actor, borrower, lender,
       collateral_token, debt_token, collateral_delta, collateral_after, principal_delta, principal_after, interest_paid)
     SELECT 31337, 200 + $2::int + g, ${hash}, 1700002400 + ($2::int + g) * 12, 1, ${hash}, l.market, l.loan_id,
            (ARRAY['collateral_added', 'collateral_withdrawn', 'repaid', 'repaid'])[1 + g % 4], l.borrower, l.borrower, l.lender, l.collateral_token, l.debt_token,
            CASE g % 4 WHEN 0 THEN 1000 WHEN 1 THEN -1000 ELSE 0 END, CASE WHEN g % 4 < 2 THEN l.collateral_amount END,
            CASE WHEN g % 4 >= 2 THEN -1000000 ELSE 0 END, CASE WHEN g % 4 >= 2 THEN l.principal_outstanding END, CASE WHEN g % 4 >= 2 THEN 1000 ELSE 0 END
       FROM generate_series(1, $1::int) g JOIN indexer_loans l ON l.chain_id = 31337 AND l.loan_id = 1 + (g::bigint * 7919) % $2::int`,
    [events - loans, loans],
  );
  await recomputeHealth(ds, 31337, [], [weth.address, usdc.address, wbtc.address]);
  // As autovacuum leaves the tables some time after a bulk write: statistics, and the visibility map
  // set (without it the planner will not choose index-only scans). VACUUM runs outside a transaction: one each.
  for (const t of ['indexer_loans', 'indexer_loan_events', 'indexer_prices']) await ds.query(`VACUUM ANALYZE ${t}`);
}
