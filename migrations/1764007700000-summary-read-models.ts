import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropStatementTriggers, statementTrigger, statementTriggers as triggers } from './support/statement-triggers';

/**
 * Read models that make the CLOB summary and the loan summary read a bounded number of rows
 * whatever the history size (docs/EXPLORE.md, "Read models"):
 *
 * - `indexer_clob_pair_daily`: fills, volume, premium volume and distinct traders per pair and
 *   UTC day (the per-series rows of `indexer_clob_daily` summed, and the trader-days of
 *   `indexer_clob_traders` counted), so a window of days reads one row per day.
 * - `indexer_loan_token_totals`: active loans, amount and rate sum per network, token and role
 *   (debt or collateral), and `indexer_loan_health_counts`: active loans below the at-risk and
 *   the liquidation lines per network, so the loan summary reads one row per token.
 *
 * Each is kept by statement-level triggers (with transition tables) on the table it sums, so
 * every write of the indexer and every rollback of a reorg (which only ever changes those
 * tables) changes it in the same transaction, by the same delta, whichever code path wrote.
 * A statement trigger runs once per statement over all its rows: a batch's multi-row insert
 * costs one grouped upsert, not one per row.
 *
 * Plus a covering index on the per-series rollup by series and day, for a summary of one series.
 */

/** The at-risk and liquidation lines (shared/loans/health.ts; a test checks they agree). */
export const AT_RISK_WAD = '1100000000000000000';
export const LIQUIDATABLE_WAD = '1000000000000000000';

const DAILY_COLS = 'chain_id, pair, day, fills, volume, premium_volume';
const TRADER_COLS = 'chain_id, pair, day';
const LOAN_COLS = 'chain_id, state, debt_token, collateral_token, principal_outstanding, collateral_amount, rate_bps, health_wad';

const pairDailyFromDaily = (op: string) => `
  INSERT INTO indexer_clob_pair_daily AS t (chain_id, pair, day, fills, volume, premium_volume, traders)
  SELECT chain_id, pair, day, sum(sign * fills), sum(sign * volume), sum(sign * premium_volume), 0
    FROM %SRC(${DAILY_COLS})%${op} d GROUP BY chain_id, pair, day
  ON CONFLICT (chain_id, pair, day) DO UPDATE
     SET fills = t.fills + EXCLUDED.fills, volume = t.volume + EXCLUDED.volume, premium_volume = t.premium_volume + EXCLUDED.premium_volume;
  DELETE FROM indexer_clob_pair_daily p USING (SELECT DISTINCT chain_id, pair, day FROM %SRC(${TRADER_COLS})%${op} k) k
   WHERE p.chain_id = k.chain_id AND p.pair = k.pair AND p.day = k.day AND p.fills = 0 AND p.traders = 0;`;

const pairDailyFromTraders = (op: string) =>
  op === 'UPDATE'
    ? 'NULL;' // a trader-day's fill count changing leaves the number of trader-days as it is
    : `
  INSERT INTO indexer_clob_pair_daily AS t (chain_id, pair, day, fills, volume, premium_volume, traders)
  SELECT chain_id, pair, day, 0, 0, 0, sum(sign) FROM %SRC(${TRADER_COLS})%${op} d GROUP BY chain_id, pair, day
  ON CONFLICT (chain_id, pair, day) DO UPDATE SET traders = t.traders + EXCLUDED.traders;
  DELETE FROM indexer_clob_pair_daily p USING (SELECT DISTINCT chain_id, pair, day FROM %SRC(${TRADER_COLS})%${op} k) k
   WHERE p.chain_id = k.chain_id AND p.pair = k.pair AND p.day = k.day AND p.fills = 0 AND p.traders = 0;`;

const loanTotals = (op: string) => `
  INSERT INTO indexer_loan_token_totals AS t (chain_id, role, token, loans, amount, rate_sum)
  SELECT chain_id, 'debt', debt_token, sum(sign), sum(sign * principal_outstanding), sum(sign * rate_bps)
    FROM %SRC(${LOAN_COLS})%${op} l WHERE state = 'active' GROUP BY chain_id, debt_token
  UNION ALL
  SELECT chain_id, 'collateral', collateral_token, sum(sign), sum(sign * collateral_amount), 0
    FROM %SRC(${LOAN_COLS})%${op} l WHERE state = 'active' GROUP BY chain_id, collateral_token
  ON CONFLICT (chain_id, role, token) DO UPDATE
     SET loans = t.loans + EXCLUDED.loans, amount = t.amount + EXCLUDED.amount, rate_sum = t.rate_sum + EXCLUDED.rate_sum;
  DELETE FROM indexer_loan_token_totals WHERE loans = 0;
  INSERT INTO indexer_loan_health_counts AS t (chain_id, at_risk, liquidatable)
  SELECT chain_id, sum(sign) FILTER (WHERE health_wad < ${AT_RISK_WAD}), COALESCE(sum(sign) FILTER (WHERE health_wad < ${LIQUIDATABLE_WAD}), 0)
    FROM %SRC(${LOAN_COLS})%${op} l WHERE state = 'active' AND health_wad < ${AT_RISK_WAD} GROUP BY chain_id
  ON CONFLICT (chain_id) DO UPDATE SET at_risk = t.at_risk + EXCLUDED.at_risk, liquidatable = t.liquidatable + EXCLUDED.liquidatable;
  DELETE FROM indexer_loan_health_counts WHERE at_risk = 0;`;

export class SummaryReadModels1764007700000 implements MigrationInterface {
  name = 'SummaryReadModels1764007700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE indexer_clob_pair_daily (
        chain_id       integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        pair           text NOT NULL,
        day            date NOT NULL,
        fills          bigint NOT NULL,
        volume         numeric(78,0) NOT NULL,
        premium_volume numeric(78,0) NOT NULL,
        traders        bigint NOT NULL,
        PRIMARY KEY (chain_id, pair, day)
      )`);
    await q.query(`
      CREATE TABLE indexer_loan_token_totals (
        chain_id integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        role     text NOT NULL CHECK (role IN ('debt', 'collateral')),
        token    text NOT NULL,
        loans    bigint NOT NULL,
        amount   numeric NOT NULL,
        rate_sum numeric NOT NULL,
        PRIMARY KEY (chain_id, role, token)
      )`);
    await q.query(`
      CREATE TABLE indexer_loan_health_counts (
        chain_id     integer PRIMARY KEY REFERENCES networks(chain_id) ON DELETE CASCADE,
        at_risk      bigint NOT NULL,
        liquidatable bigint NOT NULL
      )`);
    await q.query(`CREATE INDEX indexer_clob_daily_series ON indexer_clob_daily (chain_id, pair, option_id, day) INCLUDE (fills, volume, premium_volume)`);
    // What history exists already is summed once; from here on the triggers keep the sums.
    await q.query(`
      INSERT INTO indexer_clob_pair_daily (chain_id, pair, day, fills, volume, premium_volume, traders)
      SELECT d.chain_id, d.pair, d.day, d.fills, d.volume, d.premium_volume, COALESCE(t.traders, 0)
        FROM (SELECT chain_id, pair, day, sum(fills) AS fills, sum(volume) AS volume, sum(premium_volume) AS premium_volume
                FROM indexer_clob_daily GROUP BY 1, 2, 3) d
        FULL JOIN (SELECT chain_id, pair, day, count(*) AS traders FROM indexer_clob_traders GROUP BY 1, 2, 3) t
          ON t.chain_id = d.chain_id AND t.pair = d.pair AND t.day = d.day`);
    await q.query(`
      INSERT INTO indexer_loan_token_totals (chain_id, role, token, loans, amount, rate_sum)
      SELECT chain_id, 'debt', debt_token, count(*), sum(principal_outstanding), sum(rate_bps) FROM indexer_loans WHERE state = 'active' GROUP BY 1, 3
      UNION ALL
      SELECT chain_id, 'collateral', collateral_token, count(*), sum(collateral_amount), 0 FROM indexer_loans WHERE state = 'active' GROUP BY 1, 3`);
    await q.query(`
      INSERT INTO indexer_loan_health_counts (chain_id, at_risk, liquidatable)
      SELECT chain_id, count(*), count(*) FILTER (WHERE health_wad < ${LIQUIDATABLE_WAD})
        FROM indexer_loans WHERE state = 'active' AND health_wad < ${AT_RISK_WAD} GROUP BY 1`);
    await q.query(statementTrigger('indexer_clob_pair_daily_from_daily', pairDailyFromDaily));
    await q.query(statementTrigger('indexer_clob_pair_daily_from_traders', pairDailyFromTraders));
    await q.query(statementTrigger('indexer_loan_totals_from_loans', loanTotals));
    await triggers(q, 'indexer_clob_daily', 'indexer_clob_pair_daily_from_daily');
    await triggers(q, 'indexer_clob_traders', 'indexer_clob_pair_daily_from_traders');
    await triggers(q, 'indexer_loans', 'indexer_loan_totals_from_loans');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['indexer_clob_daily', 'indexer_clob_traders', 'indexer_loans']) await dropStatementTriggers(q, t);
    await q.query(`DROP FUNCTION indexer_clob_pair_daily_from_daily()`);
    await q.query(`DROP FUNCTION indexer_clob_pair_daily_from_traders()`);
    await q.query(`DROP FUNCTION indexer_loan_totals_from_loans()`);
    await q.query(`DROP INDEX indexer_clob_daily_series`);
    await q.query(`DROP TABLE indexer_loan_health_counts`);
    await q.query(`DROP TABLE indexer_loan_token_totals`);
    await q.query(`DROP TABLE indexer_clob_pair_daily`);
  }
}
