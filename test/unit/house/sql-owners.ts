/**
 * Which part of the service owns each table: the one folder whose SQL files write it, and the
 * folders whose SQL files may read it besides. Every table a migration creates has its row here
 * (test/unit/house/sql-owners.test.ts fails on one missing or one left over). docs/ARCHITECTURE.md,
 * "SQL lives in its owner's repository", says why the readers read.
 */
export interface TableOwner {
  /** The folders whose SQL files write the table (and read it): one, but for a table two domains share by design. */
  owners: readonly string[];
  /** Folders whose SQL files read the table without writing it, each with why. */
  readers?: readonly string[];
}

const QUOTES = 'shared/quotes/';
const DUTCH = 'shared/dutch/';
const ORDERS = 'shared/orders/';
const IDENTITY = 'shared/identity/';
const NETWORKS = 'shared/networks/';
const INDEXED = 'shared/indexed/';
const EXPLORE = 'shared/explore/';
const LOANS = 'shared/loans/';
const BONDS = 'shared/bonds/';
const EVENTS = 'shared/events/';
/** The indexer's store writes every table the indexer derives from the chain. */
const STORE = 'indexer/store/';

export const TABLE_OWNERS: Readonly<Record<string, TableOwner>> = {
  // The networks a service runs on, read by every domain that checks a chain id or a token.
  networks: { owners: [NETWORKS] },
  tokens: { owners: [NETWORKS], readers: [LOANS, STORE] },
  settings: { owners: [NETWORKS] },
  organizations: { owners: [IDENTITY] },
  organization_members: { owners: [IDENTITY] },
  api_keys: { owners: [IDENTITY] },
  admin_statement_uses: { owners: [IDENTITY] },
  // A Dutch quote is a row of quotes with its dutch_* columns: both domains write it.
  quotes: { owners: [QUOTES, DUTCH], readers: [BONDS] },
  quote_legs: { owners: [QUOTES, DUTCH] },
  quote_offers: { owners: [QUOTES] },
  dutch_bids: { owners: [DUTCH], readers: [BONDS] },
  dutch_exclusive_outcomes: { owners: [DUTCH], readers: [BONDS] },
  dutch_taker_checks: { owners: [DUTCH] },
  orders: { owners: [ORDERS], readers: [BONDS] },
  exclusive_fills: { owners: [ORDERS], readers: [DUTCH, BONDS] },
  pubsub_registrations: { owners: [EVENTS] },
  idempotency_keys: { owners: ['shared/platform/idempotency/'] },
  redis_epochs: { owners: ['shared/platform/redis/'] },
  // What the indexer writes, read by the domain that serves it.
  indexer_balances: { owners: [STORE], readers: [INDEXED] },
  indexer_blocks: { owners: [STORE], readers: [INDEXED] },
  indexer_bond_events: { owners: [STORE], readers: [BONDS] },
  indexer_checkpoints: { owners: [STORE], readers: [INDEXED] },
  indexer_clob_activity: { owners: [STORE], readers: [EXPLORE] },
  indexer_clob_daily: { owners: [STORE], readers: [EXPLORE] },
  indexer_clob_levels: { owners: [STORE], readers: [EXPLORE] },
  indexer_clob_pair_daily: { owners: [STORE], readers: [EXPLORE] },
  indexer_clob_series: { owners: [STORE], readers: [EXPLORE] },
  indexer_clob_trader_sketch: { owners: [STORE], readers: [EXPLORE] },
  indexer_clob_traders: { owners: [STORE], readers: [EXPLORE] },
  indexer_cursors: { owners: [STORE], readers: [INDEXED, EXPLORE, LOANS] },
  indexer_events: { owners: [STORE], readers: [DUTCH] },
  indexer_exclusive_fill_uses: { owners: [STORE] },
  indexer_leases: { owners: [STORE] },
  indexer_loan_events: { owners: [STORE], readers: [LOANS] },
  indexer_loan_health_counts: { owners: [STORE], readers: [LOANS] },
  indexer_loan_token_totals: { owners: [STORE], readers: [LOANS] },
  indexer_loans: { owners: [STORE], readers: [LOANS] },
  indexer_order_intents: { owners: [STORE], readers: [ORDERS] },
  indexer_orders: { owners: [STORE], readers: [INDEXED, ORDERS, EXPLORE] },
  indexer_pairs: { owners: [STORE], readers: [INDEXED, ORDERS, EXPLORE] },
  indexer_prices: { owners: [STORE], readers: [LOANS] },
  indexer_reorg_stats: { owners: [STORE], readers: [INDEXED] },
  // The operator asks for a resync through the API; the indexer takes it up.
  indexer_resync_requests: { owners: [INDEXED] },
  indexer_settlements: { owners: [STORE], readers: [DUTCH] },
  indexer_status: { owners: [STORE], readers: [INDEXED] },
  indexer_transfers: { owners: [STORE] },
};
