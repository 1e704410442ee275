import type { DataSource } from 'typeorm';
import type { AuditState, ProviderState } from './indexer-checks';

export interface StatusRecord {
  chain_id: number;
  state: 'starting' | 'backfill' | 'realtime' | 'stopped';
  head: string | null;
  head_timestamp: string | null;
  cursor: string | null;
  cursor_timestamp: string | null;
  rpc_ok: boolean;
  /** Raw failure text: for operators (ops indexer:status), never for a public answer. */
  last_error: string | null;
  error_code: string | null;
  action: string | null;
  last_synced_at: Date | null;
  /** Seconds since the indexer last wrote the row, by the database clock. */
  age_seconds: number;
  provider: ProviderState | null;
  audit: AuditState | null;
}

/** One cursor the indexer keeps: how far a network is indexed for one contract set. */
export interface CursorRecord {
  chain_id: number;
  contract_set: string;
  block_number: string;
  block_hash: string | null;
  block_timestamp: string | null;
  start_block: string | null;
  updated_at: Date;
}

/** The stored block hashes of a network: the linked window and the older checkpoints. */
export interface KeptBlocksRecord {
  chain_id: number;
  window_from: string | null;
  window_to: string | null;
  window_blocks: number;
  /** The oldest hash kept: how deep an ancestor search can reach. */
  oldest_checkpoint: string | null;
}

export interface ReorgStatsRecord {
  chain_id: number;
  reorgs: number;
  deepest: number;
  last_depth: number | null;
  last_ancestor_block: string | null;
  last_orphaned_tip: string | null;
  last_at: Date | null;
}

/** A pair (CLOB) the indexer found (`indexer_pairs`): the one declaration, read here and by Explore. */
export interface PairRecord {
  chain_id: number;
  address: string;
  token0: string;
  token1: string;
  premium_token: string;
  created_block: string;
  tx_hash: string;
}

export interface BalanceRecord {
  chain_id: number;
  pair: string;
  option_id: string;
  balance: string;
  updated_block: string;
  token0: string | null;
  token1: string | null;
  premium_token: string | null;
}

export interface OrderRecord {
  chain_id: number;
  pair: string;
  order_id: string;
  option_id: string;
  is_buy: boolean;
  price: string;
  amount: string;
  remaining: string;
  state: string;
  placed_block: string;
  tx_hash: string;
}

/** Reads of what the indexer wrote. The API reads these tables; only the indexer writes them. */
export class IndexedDataRepository {
  constructor(private readonly ds: DataSource) {}

  statuses(chainIds: number[]): Promise<StatusRecord[]> {
    return this.ds.query(
      `SELECT chain_id, state, head::text, head_timestamp::text, cursor::text, cursor_timestamp::text, rpc_ok, last_error, error_code, action,
              last_synced_at, provider, audit, EXTRACT(EPOCH FROM (now() - heartbeat_at))::float8 AS age_seconds
         FROM indexer_status WHERE chain_id = ANY($1::int[])`,
      [chainIds],
    );
  }

  cursors(chainIds: number[]): Promise<CursorRecord[]> {
    return this.ds.query(
      `SELECT chain_id, contract_set, block_number::text, block_hash, block_timestamp::text, start_block::text, updated_at
         FROM indexer_cursors WHERE chain_id = ANY($1::int[]) ORDER BY chain_id, contract_set`,
      [chainIds],
    );
  }

  keptBlocks(chainIds: number[]): Promise<KeptBlocksRecord[]> {
    return this.ds.query(
      `SELECT id AS chain_id, w.window_from, w.window_to, w.window_blocks, c.oldest_checkpoint
         FROM unnest($1::int[]) AS id
         CROSS JOIN LATERAL (SELECT min(number)::text AS window_from, max(number)::text AS window_to, count(*)::int AS window_blocks
                               FROM indexer_blocks WHERE chain_id = id) w
         CROSS JOIN LATERAL (SELECT min(number)::text AS oldest_checkpoint FROM indexer_checkpoints WHERE chain_id = id) c`,
      [chainIds],
    );
  }

  reorgStats(chainIds: number[]): Promise<ReorgStatsRecord[]> {
    return this.ds.query(
      `SELECT chain_id, reorgs, deepest, last_depth, last_ancestor_block::text, last_orphaned_tip::text, last_at
         FROM indexer_reorg_stats WHERE chain_id = ANY($1::int[])`,
      [chainIds],
    );
  }

  pairs(chainIds: number[]): Promise<Omit<PairRecord, 'tx_hash'>[]> {
    return this.ds.query(
      `SELECT p.chain_id, p.address, p.token0, p.token1, p.premium_token, p.created_block::text
         FROM indexer_pairs p WHERE p.chain_id = ANY($1::int[]) ORDER BY p.chain_id, p.created_block, p.created_log_index`,
      [chainIds],
    );
  }

  /** The addresses of the pairs the indexer found on a chain through its factory. */
  async pairAddresses(chainId: number): Promise<string[]> {
    const rows: { address: string }[] = await this.ds.query(`SELECT address FROM indexer_pairs WHERE chain_id = $1`, [chainId]);
    return rows.map((r) => r.address);
  }

  /** The token triple the indexer recorded for a pair (from the factory's PairCreated), if it found the pair. */
  async pairTokens(chainId: number, pair: string): Promise<Pick<PairRecord, 'token0' | 'token1' | 'premium_token'> | undefined> {
    const rows: Pick<PairRecord, 'token0' | 'token1' | 'premium_token'>[] = await this.ds.query(
      `SELECT token0, token1, premium_token FROM indexer_pairs WHERE chain_id = $1 AND lower(address) = lower($2)`,
      [chainId, pair],
    );
    return rows[0];
  }

  /** Every balance row of a holder, zero balances included (ids once held). */
  balances(holder: string, chainIds: number[]): Promise<BalanceRecord[]> {
    return this.ds.query(
      `SELECT b.chain_id, b.pair, b.option_id::text, b.balance::text, b.updated_block::text, p.token0, p.token1, p.premium_token
         FROM indexer_balances b
         LEFT JOIN indexer_pairs p ON p.chain_id = b.chain_id AND p.address = b.pair
        WHERE b.holder = $1 AND b.chain_id = ANY($2::int[])
        ORDER BY b.chain_id, b.pair, b.option_id`,
      [holder, chainIds],
    );
  }

  openOrders(owner: string, chainIds: number[]): Promise<OrderRecord[]> {
    return this.ds.query(
      `SELECT o.chain_id, o.pair, o.order_id::text, o.option_id::text, o.is_buy, o.price::text, o.amount::text, o.remaining::text, o.state,
              o.placed_block::text, o.tx_hash
         FROM indexer_orders o WHERE o.owner = $1 AND o.state = 'open' AND o.chain_id = ANY($2::int[])
        ORDER BY o.chain_id, o.placed_block, o.placed_log_index`,
      [owner, chainIds],
    );
  }
}
