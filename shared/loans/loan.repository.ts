import type { DataSource, EntityManager } from 'typeorm';

/**
 * Every read of the loan tables the indexer writes (indexer_loans, indexer_loan_events,
 * indexer_prices): the only place with their SQL on the reading side. Lists are keyset pages,
 * newest first unless said otherwise; each query is one index scan at any table size.
 */

export interface LoanRecord {
  chain_id: number;
  loan_id: string;
  market: string;
  borrower: string;
  lender: string;
  collateral_token: string;
  collateral_amount: string;
  debt_token: string;
  principal: string;
  principal_outstanding: string;
  interest_paid: string;
  rate_bps: number;
  threshold_bps: number;
  maturity: string;
  state: 'active' | 'repaid' | 'liquidated';
  health_wad: string | null;
  opened_block: string;
  opened_log_index: number;
  opened_at: string;
  tx_hash: string;
  last_block: string;
  closed_at: string | null;
}

export interface LoanEventRecord {
  chain_id: number;
  block_number: string;
  block_hash: string;
  block_timestamp: string;
  log_index: number;
  tx_hash: string;
  market: string;
  loan_id: string;
  kind: 'opened' | 'collateral_added' | 'collateral_withdrawn' | 'repaid' | 'liquidated';
  actor: string;
  borrower: string | null;
  lender: string | null;
  collateral_token: string | null;
  debt_token: string | null;
  collateral_delta: string;
  collateral_after: string | null;
  principal_delta: string;
  principal_after: string | null;
  interest_paid: string;
}

export interface PriceRecord {
  chain_id: number;
  block_number: string;
  block_hash: string;
  block_timestamp: string;
  log_index: number;
  tx_hash: string;
  oracle: string;
  token: string;
  price_wad: string;
  decimals: number;
}

/** A position in a list ordered by chain position: strictly older than this block and log. */
export interface ChainPosition {
  block_number: number;
  log_index: number;
}

export interface TokenTotalsRecord {
  chain_id: number;
  token: string;
  loans: string;
  amount: string;
  avg_rate_bps: string | null;
}

export interface LoanFilter {
  chain_id?: number;
  borrower?: string;
  lender?: string;
  token?: string;
  state?: LoanRecord['state'];
}

export interface LoanEventFilter {
  chain_id?: number;
  borrower?: string;
  lender?: string;
  token?: string;
  kind?: LoanEventRecord['kind'];
  /** Unix seconds, inclusive. */
  from?: number;
  to?: number;
  loan?: { chain_id: number; loan_id: string };
  collateralOnly?: boolean;
}

const LOAN_COLUMNS = `l.chain_id, l.loan_id::text AS loan_id, l.market, l.borrower, l.lender, l.collateral_token, l.collateral_amount::text AS collateral_amount,
  l.debt_token, l.principal::text AS principal, l.principal_outstanding::text AS principal_outstanding, l.interest_paid::text AS interest_paid,
  l.rate_bps, l.threshold_bps, l.maturity::text AS maturity, l.state, l.health_wad::text AS health_wad, l.opened_block::text AS opened_block,
  l.opened_log_index, l.opened_at::text AS opened_at, l.tx_hash, l.last_block::text AS last_block, l.closed_at::text AS closed_at`;

const EVENT_COLUMNS = `e.chain_id, e.block_number::text AS block_number, e.block_hash, e.block_timestamp::text AS block_timestamp, e.log_index, e.tx_hash,
  e.market, e.loan_id::text AS loan_id, e.kind, e.actor, e.borrower, e.lender, e.collateral_token, e.debt_token,
  e.collateral_delta::text AS collateral_delta, e.collateral_after::text AS collateral_after, e.principal_delta::text AS principal_delta,
  e.principal_after::text AS principal_after, e.interest_paid::text AS interest_paid`;

/** Builds `AND ...` conditions with numbered parameters. */
class Where {
  readonly params: unknown[] = [];
  readonly parts: string[] = [];
  add(sql: (p: (v: unknown) => string) => string): this {
    this.parts.push(
      sql((v) => {
        this.params.push(v);
        return `$${this.params.length}`;
      }),
    );
    return this;
  }
  get sql(): string {
    return this.parts.length ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}

export class LoanRepository {
  constructor(private readonly db: DataSource | EntityManager) {}

  private q<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.db.query(sql, params) as Promise<T[]>;
  }

  async loan(chainId: number, loanId: string): Promise<LoanRecord | null> {
    const rows = await this.q<LoanRecord>(`SELECT ${LOAN_COLUMNS} FROM indexer_loans l WHERE l.chain_id = $1 AND l.loan_id = $2::numeric LIMIT 1`, [
      chainId,
      loanId,
    ]);
    return rows[0] ?? null;
  }

  /** Loans newest first (by opening), filtered; `before` continues a page. */
  async loans(f: LoanFilter, limit: number, before?: ChainPosition & { chain_id: number }): Promise<LoanRecord[]> {
    const w = new Where();
    if (f.chain_id !== undefined) w.add((p) => `l.chain_id = ${p(f.chain_id)}`);
    if (f.borrower) w.add((p) => `l.borrower = ${p(f.borrower)}`);
    if (f.lender) w.add((p) => `l.lender = ${p(f.lender)}`);
    if (f.token)
      w.add((p) => {
        const t = p(f.token);
        return `(l.collateral_token = ${t} OR l.debt_token = ${t})`;
      });
    if (f.state) w.add((p) => `l.state = ${p(f.state)}`);
    if (before) w.add((p) => `(l.opened_block, l.opened_log_index, l.chain_id) < (${p(before.block_number)}, ${p(before.log_index)}, ${p(before.chain_id)})`);
    return this.q<LoanRecord>(
      `SELECT ${LOAN_COLUMNS} FROM indexer_loans l ${w.sql}
        ORDER BY l.opened_block DESC, l.opened_log_index DESC, l.chain_id DESC LIMIT ${Number(limit)}`,
      w.params,
    );
  }

  /** Active loans with a health factor below `belowWad`, least healthy first; `after` continues a page. */
  async atRisk(
    belowWad: bigint,
    chainId: number | undefined,
    limit: number,
    after?: { health_wad: string; chain_id: number; loan_id: string },
  ): Promise<LoanRecord[]> {
    const w = new Where().add(() => `l.state = 'active'`).add((p) => `l.health_wad < ${p(belowWad.toString())}::numeric`);
    if (chainId !== undefined) w.add((p) => `l.chain_id = ${p(chainId)}`);
    if (after) w.add((p) => `(l.health_wad, l.loan_id, l.chain_id) > (${p(after.health_wad)}::numeric, ${p(after.loan_id)}::numeric, ${p(after.chain_id)})`);
    return this.q<LoanRecord>(
      `SELECT ${LOAN_COLUMNS} FROM indexer_loans l ${w.sql} ORDER BY l.health_wad, l.loan_id, l.chain_id LIMIT ${Number(limit)}`,
      w.params,
    );
  }

  /** Loan events newest first, filtered; `before` continues a page. */
  async events(f: LoanEventFilter, limit: number, before?: ChainPosition & { chain_id: number }, order: 'desc' | 'asc' = 'desc'): Promise<LoanEventRecord[]> {
    const w = new Where();
    if (f.chain_id !== undefined) w.add((p) => `e.chain_id = ${p(f.chain_id)}`);
    if (f.loan) w.add((p) => `e.chain_id = ${p(f.loan!.chain_id)} AND e.loan_id = ${p(f.loan!.loan_id)}::numeric`);
    if (f.borrower) w.add((p) => `e.borrower = ${p(f.borrower)}`);
    if (f.lender) w.add((p) => `e.lender = ${p(f.lender)}`);
    if (f.token)
      w.add((p) => {
        const t = p(f.token);
        return `(e.collateral_token = ${t} OR e.debt_token = ${t})`;
      });
    if (f.kind) w.add((p) => `e.kind = ${p(f.kind)}`);
    if (f.from !== undefined) w.add((p) => `e.block_timestamp >= ${p(f.from)}`);
    if (f.to !== undefined) w.add((p) => `e.block_timestamp <= ${p(f.to)}`);
    if (f.collateralOnly) w.add(() => `e.collateral_delta <> 0`);
    const cmp = order === 'desc' ? '<' : '>';
    if (before) w.add((p) => `(e.block_number, e.log_index, e.chain_id) ${cmp} (${p(before.block_number)}, ${p(before.log_index)}, ${p(before.chain_id)})`);
    const dir = order === 'desc' ? 'DESC' : 'ASC';
    return this.q<LoanEventRecord>(
      `SELECT ${EVENT_COLUMNS} FROM indexer_loan_events e ${w.sql} ORDER BY e.block_number ${dir}, e.log_index ${dir}, e.chain_id ${dir} LIMIT ${Number(limit)}`,
      w.params,
    );
  }

  /** The loan events at these chain positions (what the indexer just wrote), parties filled. */
  async eventsAt(chainId: number, at: { block_hash: string; log_index: number }[]): Promise<LoanEventRecord[]> {
    if (at.length === 0) return [];
    return this.q<LoanEventRecord>(
      `SELECT ${EVENT_COLUMNS} FROM indexer_loan_events e JOIN unnest($2::text[], $3::integer[]) AS k(block_hash, log_index)
          ON e.block_hash = k.block_hash AND e.log_index = k.log_index
        WHERE e.chain_id = $1 ORDER BY e.block_number, e.log_index`,
      [chainId, at.map((a) => a.block_hash), at.map((a) => a.log_index)],
    );
  }

  /** Price updates newest first; `before` continues a page. */
  async priceUpdates(
    chainId: number | undefined,
    token: string | undefined,
    limit: number,
    before?: ChainPosition & { chain_id: number },
  ): Promise<PriceRecord[]> {
    const w = new Where();
    if (chainId !== undefined) w.add((p) => `chain_id = ${p(chainId)}`);
    if (token) w.add((p) => `token = ${p(token)}`);
    if (before) w.add((p) => `(block_number, log_index, chain_id) < (${p(before.block_number)}, ${p(before.log_index)}, ${p(before.chain_id)})`);
    return this.q<PriceRecord>(
      `SELECT chain_id, block_number::text AS block_number, block_hash, block_timestamp::text AS block_timestamp, log_index, tx_hash, oracle, token,
              price_wad::text AS price_wad, decimals
         FROM indexer_prices ${w.sql} ORDER BY block_number DESC, log_index DESC, chain_id DESC LIMIT ${Number(limit)}`,
      w.params,
    );
  }

  /** The latest price of each token of `chainId` that has one (or of `tokens` only). */
  async latestPrices(chainId: number, tokens?: string[]): Promise<{ token: string; price_wad: string; decimals: number }[]> {
    if (tokens) {
      return this.q(
        `SELECT t.token, p.price_wad::text AS price_wad, p.decimals FROM unnest($2::text[]) AS t(token)
           CROSS JOIN LATERAL (SELECT price_wad, decimals FROM indexer_prices WHERE chain_id = $1 AND token = t.token
                                ORDER BY block_number DESC, log_index DESC LIMIT 1) p`,
        [chainId, tokens],
      );
    }
    // Walks the distinct tokens through the index (a loose index scan), not every price row.
    return this.q(
      `WITH RECURSIVE toks AS (
         (SELECT token FROM indexer_prices WHERE chain_id = $1 ORDER BY token LIMIT 1)
         UNION ALL
         SELECT (SELECT token FROM indexer_prices WHERE chain_id = $1 AND token > toks.token ORDER BY token LIMIT 1) FROM toks WHERE toks.token IS NOT NULL
       )
       SELECT t.token, p.price_wad::text AS price_wad, p.decimals FROM toks t
         CROSS JOIN LATERAL (SELECT price_wad, decimals FROM indexer_prices WHERE chain_id = $1 AND token = t.token
                              ORDER BY block_number DESC, log_index DESC LIMIT 1) p
        WHERE t.token IS NOT NULL`,
      [chainId],
    );
  }

  /**
   * Active loans per debt token: count, outstanding principal, average rate. One row per token
   * of the read model `indexer_loan_token_totals`, kept by triggers on `indexer_loans`.
   */
  async debtTotals(chainId: number | undefined): Promise<TokenTotalsRecord[]> {
    return this.q(
      `SELECT chain_id, token, loans::text AS loans, amount::text AS amount, (rate_sum / loans)::text AS avg_rate_bps
         FROM indexer_loan_token_totals WHERE role = 'debt' ${chainId === undefined ? '' : 'AND chain_id = $1'}`,
      chainId === undefined ? [] : [chainId],
    );
  }

  /** Active loans per collateral token: count and collateral held (one row per token of the read model). */
  async collateralTotals(chainId: number | undefined): Promise<TokenTotalsRecord[]> {
    return this.q(
      `SELECT chain_id, token, loans::text AS loans, amount::text AS amount, NULL AS avg_rate_bps
         FROM indexer_loan_token_totals WHERE role = 'collateral' ${chainId === undefined ? '' : 'AND chain_id = $1'}`,
      chainId === undefined ? [] : [chainId],
    );
  }

  /**
   * Active loans below the at-risk line (LOAN_AT_RISK_HEALTH_WAD) and below 1.0 (liquidatable),
   * per network: one row per network of `indexer_loan_health_counts`, kept by triggers on
   * `indexer_loans` for those two lines (test/integration/loans/summary-read-models.test.ts
   * checks they are the lines the service passes).
   */
  async healthCounts(chainId: number | undefined): Promise<{ chain_id: number; at_risk: string; liquidatable: string }[]> {
    return this.q(
      `SELECT chain_id, at_risk::text AS at_risk, liquidatable::text AS liquidatable FROM indexer_loan_health_counts ${chainId === undefined ? '' : 'WHERE chain_id = $1'}`,
      chainId === undefined ? [] : [chainId],
    );
  }

  /** Symbol and decimals of registered tokens of `chainId`. */
  async tokenInfo(chainId: number, addresses: string[]): Promise<{ address: string; symbol: string; decimals: number }[]> {
    if (addresses.length === 0) return [];
    return this.q(`SELECT address, symbol, decimals FROM tokens WHERE chain_id = $1 AND address = ANY($2::text[])`, [chainId, addresses]);
  }

  /** The block the network's lowest cursor has reached (what a snapshot reflects), or undefined before the indexer's first batch. */
  async indexedHead(chainId: number): Promise<{ block_number: string; block_hash: string | null; block_timestamp: string | null } | undefined> {
    const [head] = await this.q<{ block_number: string; block_hash: string | null; block_timestamp: string | null }>(
      `SELECT block_number::text AS block_number, block_hash, block_timestamp::text AS block_timestamp FROM indexer_cursors WHERE chain_id = $1 ORDER BY block_number ASC LIMIT 1`,
      [chainId],
    );
    return head;
  }
}
