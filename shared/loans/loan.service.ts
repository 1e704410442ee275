import type { DataSource } from 'typeorm';
import { NotFoundError, ValidationError } from '../platform/errors';
import { encodeCursor, type Page } from '../platform/pagination';
import { independentReads, type ReadResults } from '../platform/db';
import { NetworksService, type NetworkLookup } from '../networks';
import { formatWad, LOAN_AT_RISK_HEALTH_WAD, parseWad, valueWad, type TokenPrice } from './health';
import { LoanRepository, type LoanEventRecord, type LoanRecord } from './loan.repository';
import type { ActivityQuery, AtRiskQuery, CollateralQuery, EventsQuery, LoansQuery, RecentQuery, SummaryQuery } from './loan.schemas';
import { loanEventView, loanView, parseLoanId, priceUpdateView, type ValuationContext } from './loan.views';

/** How many history events one loan answer carries (the rest: its collateral route or /activity). */
const HISTORY_LIMIT = 500;

/**
 * Explore's loan reads (docs/LOANS.md): what a risk analyst asks of the indexed lending market.
 * Values come from the indexer's tables and the latest oracle prices; every list is a keyset
 * page. The live stream is the loan feed on the shared Explore machinery (loan-feed.ts).
 */
export class LoanService {
  private readonly repo: LoanRepository;
  private readonly networks: NetworksService;

  /** Reads one after another: set when `db` is a transaction, whose one connection runs one query at a time. */
  private readonly serial: boolean;

  /** `networks`: where the chain id of a request is checked (the API's gate memory); the database by default. */
  constructor(deps: { db: DataSource; oneConnection?: boolean; networks?: NetworkLookup }) {
    this.repo = new LoanRepository(deps.db);
    this.networks = new NetworksService(deps.db, deps.networks);
    this.serial = deps.oneConnection ?? false;
  }

  /** Independent reads side by side on the pool, or in turn on a transaction's one connection. */
  private reads<T extends readonly (() => Promise<unknown>)[]>(...fns: T): Promise<ReadResults<T>> {
    return independentReads(this.serial, ...fns);
  }

  /** Prices and token metadata for the tokens of `loans` (lower-case keys). */
  private async valuation(chainId: number, tokens: string[]): Promise<ValuationContext> {
    const unique = [...new Set(tokens)];
    const [prices, info] = await this.reads(
      () => this.repo.latestPrices(chainId, unique),
      () => this.repo.tokenInfo(chainId, unique),
    );
    return {
      prices: new Map(prices.map((p) => [p.token.toLowerCase(), { price_wad: BigInt(p.price_wad), decimals: p.decimals }])),
      tokens: new Map(info.map((t) => [t.address.toLowerCase(), { symbol: t.symbol, decimals: t.decimals }])),
      now: Math.floor(Date.now() / 1000),
    };
  }

  private async loanViews(chainId: number, rows: LoanRecord[]) {
    const ctx = await this.valuation(
      chainId,
      rows.flatMap((r) => [r.collateral_token, r.debt_token]),
    );
    return rows.map((r) => loanView(r, ctx));
  }

  /** Totals per network and per token: active loans, outstanding principal, collateral value, average rate. */
  async summary(q: SummaryQuery) {
    if (q.chain_id !== undefined) await this.networks.requireNetwork(q.chain_id);
    const [debt, collateral, health] = await this.reads(
      () => this.repo.debtTotals(q.chain_id),
      () => this.repo.collateralTotals(q.chain_id),
      () => this.repo.healthCounts(q.chain_id),
    );
    const chains = [...new Set([...debt, ...collateral].map((r) => r.chain_id))].sort((a, b) => a - b);
    if (q.chain_id !== undefined && !chains.includes(q.chain_id)) chains.push(q.chain_id);
    const networks = [];
    for (const chainId of chains) {
      const d = debt.filter((r) => r.chain_id === chainId);
      const c = collateral.filter((r) => r.chain_id === chainId);
      const ctx = await this.valuation(
        chainId,
        [...d, ...c].map((r) => r.token),
      );
      const tokens = [...new Set([...d, ...c].map((r) => r.token))].sort();
      let collateralUsd = 0n;
      let debtUsd = 0n;
      let pricedAll = true;
      const rows = tokens.map((token) => {
        const p: TokenPrice | undefined = ctx.prices.get(token.toLowerCase());
        const t = ctx.tokens.get(token.toLowerCase());
        const asDebt = d.find((r) => r.token === token);
        const asCollateral = c.find((r) => r.token === token);
        const debtValue = asDebt && p ? valueWad(BigInt(asDebt.amount), p) : null;
        const collateralValue = asCollateral && p ? valueWad(BigInt(asCollateral.amount), p) : null;
        if ((asDebt || asCollateral) && !p) pricedAll = false;
        debtUsd += debtValue ?? 0n;
        collateralUsd += collateralValue ?? 0n;
        return {
          token,
          symbol: t?.symbol ?? null,
          decimals: t?.decimals ?? p?.decimals ?? null,
          price_usd: p ? formatWad(p.price_wad) : null,
          as_debt: {
            active_loans: Number(asDebt?.loans ?? 0),
            outstanding_principal: asDebt?.amount ?? '0',
            outstanding_value_usd: debtValue === null ? null : formatWad(debtValue),
            average_rate_bps: asDebt?.avg_rate_bps ? Number(Number(asDebt.avg_rate_bps).toFixed(2)) : null,
          },
          as_collateral: {
            active_loans: Number(asCollateral?.loans ?? 0),
            amount: asCollateral?.amount ?? '0',
            value_usd: collateralValue === null ? null : formatWad(collateralValue),
          },
        };
      });
      const h = health.find((r) => r.chain_id === chainId);
      networks.push({
        chain_id: chainId,
        totals: {
          active_loans: d.reduce((n, r) => n + Number(r.loans), 0),
          outstanding_value_usd: formatWad(debtUsd),
          collateral_value_usd: formatWad(collateralUsd),
          priced: pricedAll,
          at_risk_loans: Number(h?.at_risk ?? 0),
          liquidatable_loans: Number(h?.liquidatable ?? 0),
          at_risk_below: formatWad(LOAN_AT_RISK_HEALTH_WAD) as string,
        },
        tokens: rows,
      });
    }
    return { networks };
  }

  /** Active loans whose health is below `below` (default the at-risk line), least healthy first. */
  async atRisk(q: AtRiskQuery): Promise<Page<ReturnType<typeof loanView>>> {
    await this.networks.requireNetwork(q.chain_id);
    const below = q.below === undefined ? LOAN_AT_RISK_HEALTH_WAD : parseWad(q.below);
    const after = q.cursor && { health_wad: q.cursor[0], loan_id: q.cursor[1], chain_id: q.chain_id };
    const rows = await this.repo.atRisk(below, q.chain_id, q.limit + 1, after);
    return this.page(
      rows,
      q.limit,
      (r) => [r.health_wad as string, r.loan_id],
      (rs) => this.loanViews(q.chain_id, rs),
    );
  }

  /** Loans newest first by opening. */
  async recent(q: RecentQuery) {
    return this.loans({ chain_id: q.chain_id, limit: q.limit, cursor: q.cursor });
  }

  /** Loans filtered by party, token and state, newest opening first. */
  async loans(q: LoansQuery): Promise<Page<ReturnType<typeof loanView>>> {
    await this.networks.requireNetwork(q.chain_id);
    const before = position(q.cursor);
    const rows = await this.repo.loans(
      { chain_id: q.chain_id, borrower: q.borrower, lender: q.lender, token: q.token, state: q.state },
      q.limit + 1,
      before && { ...before, chain_id: q.chain_id },
    );
    return this.page(
      rows,
      q.limit,
      (r) => [Number(r.opened_block), r.opened_log_index],
      (rs) => this.loanViews(q.chain_id, rs),
    );
  }

  /** Every loan event, newest first, filtered by party, token, kind and time. */
  async activity(q: ActivityQuery): Promise<Page<ReturnType<typeof loanEventView>>> {
    await this.networks.requireNetwork(q.chain_id);
    if (q.from !== undefined && q.to !== undefined && q.from > q.to) throw ValidationError.field('from', 'must not be after to');
    const limit = q.limit;
    const before = position(q.cursor);
    const rows = await this.repo.events(
      { chain_id: q.chain_id, borrower: q.borrower, lender: q.lender, token: q.token, kind: q.type, from: q.from, to: q.to },
      limit + 1,
      before && { ...before, chain_id: q.chain_id },
    );
    return this.page(rows, limit, eventKey, async (rs) => rs.map(loanEventView));
  }

  /** The chain's loan and price events merged, newest first, as indexed (block, transaction, log). */
  async events(q: EventsQuery) {
    await this.networks.requireNetwork(q.chain_id);
    const limit = q.limit;
    const before = position(q.cursor);
    const at = before && { ...before, chain_id: q.chain_id };
    const [loans, prices] = await this.reads(
      async () => (q.type === 'price' ? [] : this.repo.events({ chain_id: q.chain_id, token: q.token }, limit + 1, at)),
      async () => (q.type === 'loan' ? [] : this.repo.priceUpdates(q.chain_id, q.token, limit + 1, at)),
    );
    const merged = [
      ...loans.map((e) => ({ key: eventKey(e), item: { type: 'loan' as const, loan: loanEventView(e), price: null } })),
      ...prices.map((p) => ({
        key: [Number(p.block_number), p.log_index] as [number, number],
        item: { type: 'price' as const, loan: null, price: priceUpdateView(p) },
      })),
    ].sort((x, y) => y.key[0] - x.key[0] || y.key[1] - x.key[1]);
    const items = merged.slice(0, limit);
    const last = items[items.length - 1];
    return { items: items.map((m) => m.item), next_cursor: merged.length > limit && last ? encodeCursor(last.key) : null };
  }

  /** One loan with its history, oldest event first. */
  async loan(id: string) {
    const { chainId, row } = await this.requireLoan(id);
    const [view] = await this.loanViews(chainId, [row]);
    const history = await this.repo.events({ loan: { chain_id: chainId, loan_id: row.loan_id } }, HISTORY_LIMIT, undefined, 'asc');
    return { ...view, history: history.map(loanEventView) };
  }

  /** A loan's collateral movements (opening deposit, top-ups, withdrawals, return, seizure), newest first. */
  async collateral(id: string, q: CollateralQuery): Promise<Page<ReturnType<typeof loanEventView>>> {
    const { chainId, row } = await this.requireLoan(id);
    const limit = q.limit;
    const before = position(q.cursor);
    const rows = await this.repo.events(
      { loan: { chain_id: chainId, loan_id: row.loan_id }, collateralOnly: true },
      limit + 1,
      before && { ...before, chain_id: chainId },
    );
    return this.page(rows, limit, eventKey, async (rs) => rs.map(loanEventView));
  }

  private async requireLoan(id: string): Promise<{ chainId: number; row: LoanRecord }> {
    const parsed = parseLoanId(id);
    if (!parsed) throw ValidationError.field('id', 'must be a loan id such as 31337-7 (chain id, dash, loan id)');
    const row = await this.repo.loan(parsed.chain_id, parsed.loan_id);
    if (!row) throw new NotFoundError(`no loan ${id}`, 'loan_not_found');
    return { chainId: parsed.chain_id, row };
  }

  private async page<R, V>(rows: R[], limit: number, key: (r: R) => readonly (string | number)[], view: (rs: R[]) => Promise<V[]>): Promise<Page<V>> {
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    return { items: await view(items), next_cursor: rows.length > limit && last !== undefined ? encodeCursor(key(last)) : null };
  }
}

const eventKey = (e: LoanEventRecord): [number, number] => [Number(e.block_number), e.log_index];

/** Where a page of events or loans starts: the block and log index of the previous page's last item. */
const position = (cursor: readonly [number, number] | undefined) => cursor && { block_number: cursor[0], log_index: cursor[1] };
