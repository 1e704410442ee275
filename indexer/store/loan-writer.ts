import { LOAN_AT_RISK_HEALTH_WAD } from '../../shared/loans';
import type { LoanBatch, LoanEventRow, PriceRow } from '../types';
import type { Hex } from '../rpc/rpc';
import { exec, insertMany, type Column, type Queryable } from './sql';
import { chainColumn, position } from './changeset-writer';

/**
 * Writes and rollbacks of the loan tables (called through DERIVED_TABLES). Order matters and is
 * the list's: prices first (a loan's health reads the latest prices), then loans (health
 * recomputed, crossings of the at-risk line noted), then loan events (parties of older loans
 * read from the loans).
 */

/** A loan whose health crossed the at-risk line in a batch: what the loan stream announces. */
export interface LoanHealthCrossing {
  market: Hex;
  loan_id: string;
  borrower: Hex;
  lender: Hex;
  collateral_token: Hex;
  debt_token: Hex;
  /** 18 decimals; null when a price is missing. */
  health_before: string | null;
  health_after: string | null;
  crossed: 'at_risk' | 'recovered';
  /** `price_update` when only prices moved the loan; `loan_event` when its own event did. */
  cause: 'price_update' | 'loan_event';
  block_number: number;
  block_hash: Hex;
  block_timestamp: number;
}

/** What one batch's loan writes pass on: tokens repriced (read by the loans' write), crossings (published). */
export interface LoanWriteEffects {
  repricedTokens: Set<string>;
  crossings: LoanHealthCrossing[];
  /** The batch's last block, which crossings are stamped with. */
  lastBlock: { number: number; hash: Hex; timestamp: number } | null;
}

export async function writePrices(m: Queryable, chainId: number, rows: PriceRow[], effects: LoanWriteEffects): Promise<void> {
  await insertMany(
    m,
    'indexer_prices',
    rows,
    [
      ...position<PriceRow>(),
      { name: 'oracle', type: 'text' },
      { name: 'token', type: 'text' },
      { name: 'price_wad', type: 'numeric' },
      { name: 'decimals', type: 'smallint' },
    ],
    chainColumn(chainId),
  );
  for (const r of rows) {
    effects.repricedTokens.add(r.token);
    noteBlock(effects, r);
  }
}

function noteBlock(effects: LoanWriteEffects, r: { block_number: number; block_hash: Hex; block_timestamp: number }): void {
  if (!effects.lastBlock || r.block_number >= effects.lastBlock.number)
    effects.lastBlock = { number: r.block_number, hash: r.block_hash, timestamp: r.block_timestamp };
}

/** Inserts the loans the batch opened, moves older ones to the state it left them in, then recomputes health. */
export async function writeLoans(m: Queryable, chainId: number, batch: LoanBatch, effects: LoanWriteEffects): Promise<void> {
  await insertMany(
    m,
    'indexer_loans',
    batch.opened,
    [
      { name: 'loan_id', type: 'numeric' },
      { name: 'market', type: 'text' },
      { name: 'borrower', type: 'text' },
      { name: 'lender', type: 'text' },
      { name: 'collateral_token', type: 'text' },
      { name: 'collateral_amount', type: 'numeric' },
      { name: 'debt_token', type: 'text' },
      { name: 'principal', type: 'numeric' },
      { name: 'principal_outstanding', type: 'numeric' },
      { name: 'interest_paid', type: 'numeric' },
      { name: 'rate_bps', type: 'integer' },
      { name: 'threshold_bps', type: 'integer' },
      { name: 'maturity', type: 'bigint' },
      { name: 'state', type: 'text' },
      { name: 'opened_block', type: 'bigint' },
      { name: 'opened_block_hash', type: 'text' },
      { name: 'opened_log_index', type: 'integer' },
      { name: 'opened_at', type: 'bigint' },
      { name: 'tx_hash', type: 'text' },
      { name: 'last_block', type: 'bigint' },
      { name: 'last_log_index', type: 'integer' },
      { name: 'closed_at', type: 'bigint' },
    ],
    chainColumn(chainId),
  );
  const u = batch.updates;
  if (u.length > 0) {
    await m.query(
      `UPDATE indexer_loans l
          SET collateral_amount = COALESCE(u.collateral_amount, l.collateral_amount),
              principal_outstanding = COALESCE(u.principal_outstanding, l.principal_outstanding),
              interest_paid = l.interest_paid + u.interest_paid,
              state = u.state, last_block = u.last_block, last_log_index = u.last_log_index, closed_at = u.closed_at
         FROM unnest($2::text[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[], $7::text[], $8::bigint[], $9::integer[], $10::bigint[])
              AS u(market, loan_id, collateral_amount, principal_outstanding, interest_paid, state, last_block, last_log_index, closed_at)
        WHERE l.chain_id = $1 AND l.loan_id = u.loan_id AND l.market = u.market`,
      [
        chainId,
        u.map((r) => r.market),
        u.map((r) => r.loan_id),
        u.map((r) => r.collateral_amount),
        u.map((r) => r.principal_outstanding),
        u.map((r) => r.interest_paid),
        u.map((r) => r.state),
        u.map((r) => r.last_block),
        u.map((r) => r.last_log_index),
        u.map((r) => r.closed_at),
      ],
    );
  }
  for (const r of batch.opened) noteBlock(effects, { block_number: r.last_block, block_hash: r.opened_block_hash, block_timestamp: r.opened_at });
  const touched = [...batch.opened, ...u].map((r) => ({ market: r.market, loan_id: r.loan_id }));
  if (touched.length === 0 && effects.repricedTokens.size === 0) return;
  const changed = await recomputeHealth(m, chainId, touched, [...effects.repricedTokens]);
  const ownEvent = new Set(touched.map((t) => `${t.market}|${t.loan_id}`));
  const at = effects.lastBlock;
  for (const c of changed) {
    const before = c.old_health === null ? null : BigInt(c.old_health);
    const after = c.new_health === null ? null : BigInt(c.new_health);
    const wasAtRisk = before !== null && before < LOAN_AT_RISK_HEALTH_WAD;
    const isAtRisk = after !== null && after < LOAN_AT_RISK_HEALTH_WAD;
    if (c.state !== 'active' || wasAtRisk === isAtRisk || !at) continue;
    effects.crossings.push({
      market: c.market,
      loan_id: c.loan_id,
      borrower: c.borrower,
      lender: c.lender,
      collateral_token: c.collateral_token,
      debt_token: c.debt_token,
      health_before: c.old_health,
      health_after: c.new_health,
      crossed: isAtRisk ? 'at_risk' : 'recovered',
      cause: ownEvent.has(`${c.market}|${c.loan_id}`) ? 'loan_event' : 'price_update',
      block_number: at.number,
      block_hash: at.hash,
      block_timestamp: at.timestamp,
    });
  }
}

interface HealthChange {
  market: Hex;
  loan_id: string;
  borrower: Hex;
  lender: Hex;
  collateral_token: Hex;
  debt_token: Hex;
  state: string;
  old_health: string | null;
  new_health: string | null;
}

/**
 * Sets the health factor of the given loans, and of every active loan of the given tokens, from
 * the latest prices (the formula of shared/loans/health.ts, one exact integer division); returns
 * the loans whose health changed with the value before. Closed loans have no health.
 */
export async function recomputeHealth(m: Queryable, chainId: number, loans: { market: string; loan_id: string }[], tokens: string[]): Promise<HealthChange[]> {
  const { rows } = await exec<HealthChange>(
    m,
    `WITH target AS (
       SELECT l.loan_id, l.market FROM indexer_loans l
        WHERE l.chain_id = $1 AND (l.loan_id, l.market) IN (SELECT * FROM unnest($2::numeric[], $3::text[]))
       UNION
       SELECT l.loan_id, l.market FROM indexer_loans l
        WHERE l.chain_id = $1 AND l.state = 'active' AND l.collateral_token = ANY($4::text[])
       UNION
       SELECT l.loan_id, l.market FROM indexer_loans l
        WHERE l.chain_id = $1 AND l.state = 'active' AND l.debt_token = ANY($4::text[])
     ), loans AS (
       SELECT l.* FROM indexer_loans l JOIN target t ON l.chain_id = $1 AND l.loan_id = t.loan_id AND l.market = t.market
     ), tokens AS (
       SELECT collateral_token AS token FROM loans UNION SELECT debt_token FROM loans
     ), price AS (
       SELECT t.token, p.price_wad, p.decimals FROM tokens t
       CROSS JOIN LATERAL (
         SELECT price_wad, decimals FROM indexer_prices
          WHERE chain_id = $1 AND token = t.token ORDER BY block_number DESC, log_index DESC LIMIT 1
       ) p
     ), fresh AS (
       SELECT l.loan_id, l.market, l.health_wad AS old_health,
              CASE WHEN l.state <> 'active' OR l.principal_outstanding = 0 OR cp.price_wad IS NULL OR dp.price_wad IS NULL THEN NULL
                   ELSE div(l.collateral_amount * cp.price_wad * power(10::numeric, dp.decimals) * l.threshold_bps * 1000000000000000000,
                            power(10::numeric, cp.decimals) * 10000 * l.principal_outstanding * dp.price_wad) END AS new_health
         FROM loans l
         LEFT JOIN price cp ON cp.token = l.collateral_token
         LEFT JOIN price dp ON dp.token = l.debt_token
     )
     UPDATE indexer_loans l SET health_wad = f.new_health
       FROM fresh f
      WHERE l.chain_id = $1 AND l.loan_id = f.loan_id AND l.market = f.market AND l.health_wad IS DISTINCT FROM f.new_health
     RETURNING l.market, l.loan_id::text AS loan_id, l.borrower, l.lender, l.collateral_token, l.debt_token, l.state,
               f.old_health::text AS old_health, f.new_health::text AS new_health`,
    [chainId, loans.map((l) => l.loan_id), loans.map((l) => l.market), tokens],
  );
  return rows;
}

/** Inserts the batch's loan events; an older loan's parties and tokens come from its row. */
export async function writeLoanEvents(m: Queryable, chainId: number, rows: LoanEventRow[]): Promise<void> {
  if (rows.length === 0) return;
  const cols: Column<LoanEventRow>[] = [
    ...position<LoanEventRow>(),
    { name: 'market', type: 'text' },
    { name: 'loan_id', type: 'numeric' },
    { name: 'kind', type: 'text' },
    { name: 'actor', type: 'text' },
    { name: 'borrower', type: 'text' },
    { name: 'lender', type: 'text' },
    { name: 'collateral_token', type: 'text' },
    { name: 'debt_token', type: 'text' },
    { name: 'collateral_delta', type: 'numeric' },
    { name: 'collateral_after', type: 'numeric' },
    { name: 'principal_delta', type: 'numeric' },
    { name: 'principal_after', type: 'numeric' },
    { name: 'interest_paid', type: 'numeric' },
  ];
  const fromLoan = new Set(['borrower', 'lender', 'collateral_token', 'debt_token']);
  const names = cols.map((c) => c.name);
  const selects = cols.map((c) => (fromLoan.has(c.name) ? `COALESCE(x.${c.name}, l.${c.name})` : `x.${c.name}`));
  await m.query(
    `INSERT INTO indexer_loan_events (chain_id, ${names.join(', ')})
     SELECT $2::integer, ${selects.join(', ')}
       FROM json_to_recordset($1::json) AS x(${cols.map((c) => `${c.name} ${c.type}`).join(', ')})
       LEFT JOIN indexer_loans l ON l.chain_id = $2 AND l.loan_id = x.loan_id AND l.market = x.market`,
    [JSON.stringify(rows), chainId],
  );
}

/** Notes the tokens whose prices above `at` go (their loans' health is recomputed), then deletes them. */
export async function rollbackPrices(m: Queryable, chainId: number, at: number, effects: { loanTokens: string[]; loans: boolean }): Promise<void> {
  const { rows } = await exec<{ token: string }>(m, `DELETE FROM indexer_prices WHERE chain_id = $1 AND block_number > $2 RETURNING token`, [chainId, at]);
  if (rows.length > 0) effects.loans = true;
  effects.loanTokens.push(...new Set(rows.map((r) => r.token)));
}

/**
 * Loans opened above `at` go; loans whose last event was above `at` take the state their
 * latest surviving event gives them (loan events still all exist: their rollback runs after);
 * then the health of those loans and of every active loan of a repriced token is recomputed.
 */
export async function rollbackLoans(m: Queryable, chainId: number, at: number, effects: { loanTokens: string[]; loans: boolean }): Promise<void> {
  // last_block >= opened_block: the condition on last_block lets the index find the rows.
  const gone = await exec(m, `DELETE FROM indexer_loans WHERE chain_id = $1 AND last_block > $2 AND opened_block > $2`, [chainId, at]);
  const { rows: touched } = await exec<{ market: string; loan_id: string }>(
    m,
    `UPDATE indexer_loans l
        SET collateral_amount = s.collateral_after,
            principal_outstanding = s.principal_after,
            interest_paid = s.interest_paid,
            state = s.state,
            last_block = s.block_number,
            last_log_index = s.log_index,
            closed_at = s.closed_at
       FROM (
         SELECT l2.loan_id, l2.market, e.block_number, e.log_index, i.interest_paid,
                c.collateral_after, p.principal_after,
                CASE WHEN p.principal_after > 0 THEN 'active' WHEN e.kind = 'liquidated' THEN 'liquidated' ELSE 'repaid' END AS state,
                CASE WHEN p.principal_after = 0 THEN p.block_timestamp END AS closed_at
           FROM indexer_loans l2
           CROSS JOIN LATERAL (
             SELECT block_number, log_index, block_timestamp, kind, principal_after FROM indexer_loan_events
              WHERE chain_id = $1 AND loan_id = l2.loan_id AND block_number <= $2 AND market = l2.market
              ORDER BY block_number DESC, log_index DESC LIMIT 1
           ) e
           CROSS JOIN LATERAL (
             SELECT collateral_after FROM indexer_loan_events
              WHERE chain_id = $1 AND loan_id = l2.loan_id AND block_number <= $2 AND market = l2.market AND collateral_after IS NOT NULL
              ORDER BY block_number DESC, log_index DESC LIMIT 1
           ) c
           CROSS JOIN LATERAL (
             SELECT principal_after, block_timestamp FROM indexer_loan_events
              WHERE chain_id = $1 AND loan_id = l2.loan_id AND block_number <= $2 AND market = l2.market AND principal_after IS NOT NULL
              ORDER BY block_number DESC, log_index DESC LIMIT 1
           ) p
           CROSS JOIN LATERAL (
             SELECT COALESCE(sum(interest_paid), 0) AS interest_paid FROM indexer_loan_events
              WHERE chain_id = $1 AND loan_id = l2.loan_id AND block_number <= $2 AND market = l2.market
           ) i
          WHERE l2.chain_id = $1 AND l2.last_block > $2
       ) s
      WHERE l.chain_id = $1 AND l.loan_id = s.loan_id AND l.market = s.market
      RETURNING l.market, l.loan_id::text AS loan_id`,
    [chainId, at],
  );
  if (gone.count > 0 || touched.length > 0) effects.loans = true;
  if (touched.length > 0 || effects.loanTokens.length > 0) await recomputeHealth(m, chainId, touched, effects.loanTokens);
}
