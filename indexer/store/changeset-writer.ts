import type { BalanceDelta, EventRow, OrderBatch, PairRow, RowPosition, SettlementRow, TransferRow } from '../types';
import { fillSettledQuotes } from '../../shared/quotes';
import { insertMany, type Column, type Queryable } from './sql';

/** A quote this batch marked filled, with what its taker stream needs to hear. */
export interface FilledQuote {
  quote_id: string;
  stream_token_hash: string;
  settlement: SettlementRow;
  /**
   * When this fill was recorded (ms). A quote reopened by a rollback and filled again by the same
   * block (an operator's resync re-deriving it) is news again: its notice must not be taken for
   * the first one's duplicate.
   */
  filled_at_ms: string;
}

/** The columns every log-derived row starts with: where in the chain its log sits. Shared by every writer of the store. */
export const position = <R extends RowPosition>(): Column<R>[] => [
  { name: 'block_number', type: 'bigint' },
  { name: 'block_hash', type: 'text' },
  { name: 'block_timestamp', type: 'bigint' },
  { name: 'log_index', type: 'integer' },
  { name: 'tx_hash', type: 'text' },
];

/** The batch's chain, written into every row as a constant. */
export const chainColumn = (chainId: number) => ({ constants: [{ name: 'chain_id', value: chainId, type: 'integer' }] });

/**
 * How each table's rows of one batch are written, one statement per table (called through
 * `DERIVED_TABLES`, which pairs each with its rollback).
 */
export async function writePairs(m: Queryable, chainId: number, rows: PairRow[]): Promise<void> {
  await insertMany(
    m,
    'indexer_pairs',
    rows,
    [
      { name: 'address', type: 'text' },
      { name: 'factory', type: 'text' },
      { name: 'token0', type: 'text' },
      { name: 'token1', type: 'text' },
      { name: 'premium_token', type: 'text' },
      { name: 'created_block', type: 'bigint' },
      { name: 'created_block_hash', type: 'text' },
      { name: 'created_log_index', type: 'integer' },
      { name: 'tx_hash', type: 'text' },
    ],
    chainColumn(chainId),
  );
}

export async function writeEvents(m: Queryable, chainId: number, rows: EventRow[]): Promise<void> {
  await insertMany(
    m,
    'indexer_events',
    rows,
    [...position<EventRow>(), { name: 'address', type: 'text' }, { name: 'event_name', type: 'text' }, { name: 'args', type: 'jsonb' }],
    chainColumn(chainId),
  );
}

export async function writeTransfers(m: Queryable, chainId: number, rows: TransferRow[]): Promise<void> {
  await insertMany(
    m,
    'indexer_transfers',
    rows,
    [
      ...position<TransferRow>(),
      { name: 'pair', type: 'text' },
      { name: 'caller', type: 'text' },
      { name: 'sender', type: 'text' },
      { name: 'receiver', type: 'text' },
      { name: 'option_id', type: 'numeric' },
      { name: 'amount', type: 'numeric' },
    ],
    chainColumn(chainId),
  );
}

/** Adds each net delta to the holder's balance (a new row when the holder had none). */
export async function writeBalances(m: Queryable, chainId: number, rows: BalanceDelta[]): Promise<void> {
  await insertMany(
    m,
    'indexer_balances',
    rows,
    [
      { name: 'holder', type: 'text' },
      { name: 'pair', type: 'text' },
      { name: 'option_id', type: 'numeric' },
      { name: 'balance', type: 'numeric', value: (r) => r.delta },
      { name: 'first_block', type: 'bigint' },
      { name: 'updated_block', type: 'bigint', value: (r) => r.last_block },
    ],
    {
      ...chainColumn(chainId),
      suffix: `ON CONFLICT (chain_id, holder, pair, option_id) DO UPDATE
               SET balance = indexer_balances.balance + EXCLUDED.balance, updated_block = EXCLUDED.updated_block`,
    },
  );
}

/** Inserts the orders the batch placed and moves older ones to the state the batch left them in. */
export async function writeOrders(m: Queryable, chainId: number, batch: OrderBatch): Promise<void> {
  await insertMany(
    m,
    'indexer_orders',
    batch.placed,
    [
      { name: 'pair', type: 'text' },
      { name: 'order_id', type: 'numeric' },
      { name: 'owner', type: 'text' },
      { name: 'option_id', type: 'numeric' },
      { name: 'is_buy', type: 'boolean' },
      { name: 'price', type: 'numeric' },
      { name: 'amount', type: 'numeric' },
      { name: 'remaining', type: 'numeric' },
      { name: 'state', type: 'text' },
      { name: 'placed_block', type: 'bigint' },
      { name: 'placed_block_hash', type: 'text' },
      { name: 'placed_log_index', type: 'integer' },
      { name: 'tx_hash', type: 'text' },
      { name: 'last_block', type: 'bigint' },
      { name: 'last_log_index', type: 'integer' },
    ],
    chainColumn(chainId),
  );
  if (batch.updates.length > 0) {
    const u = batch.updates;
    await m.query(
      `UPDATE indexer_orders o
          SET remaining = u.remaining, state = u.state, last_block = u.last_block, last_log_index = u.last_log_index
         FROM unnest($2::text[], $3::numeric[], $4::numeric[], $5::text[], $6::bigint[], $7::integer[])
              AS u(pair, order_id, remaining, state, last_block, last_log_index)
        WHERE o.chain_id = $1 AND o.pair = u.pair AND o.order_id = u.order_id`,
      [
        chainId,
        u.map((r) => r.pair),
        u.map((r) => r.order_id),
        u.map((r) => r.remaining),
        u.map((r) => r.state),
        u.map((r) => r.last_block),
        u.map((r) => r.last_log_index),
      ],
    );
  }
}

/**
 * Marks the quote each settlement pays filled (the quote state module matches them by chain and
 * taker hash) and stores the settlements with the quote they filled. Returns the quotes this
 * batch filled.
 */
export async function settle(m: Queryable, chainId: number, settlements: SettlementRow[]): Promise<FilledQuote[]> {
  if (settlements.length === 0) return [];
  const rows = await fillSettledQuotes(m, chainId, settlements);
  const byHash = new Map(rows.map((r) => [r.taker_address_hash.toLowerCase(), r]));
  const filled: FilledQuote[] = [];
  const quoteOf = new Map<SettlementRow, string>();
  for (const s of settlements) {
    // A quote is filled once: only the first settlement carrying its hash claims it.
    const q = byHash.get(s.taker_address_hash);
    if (!q) continue;
    byHash.delete(s.taker_address_hash);
    quoteOf.set(s, q.quote_id);
    filled.push({ quote_id: q.quote_id, stream_token_hash: q.stream_token_hash, settlement: s, filled_at_ms: q.filled_at_ms });
  }
  await insertMany(
    m,
    'indexer_settlements',
    settlements,
    [
      ...position<SettlementRow>(),
      { name: 'mothership', type: 'text' },
      { name: 'taker_address_hash', type: 'text' },
      { name: 'maker', type: 'text' },
      { name: 'taker', type: 'text' },
      { name: 'offer_digest', type: 'text' },
      { name: 'premium_token', type: 'text' },
      { name: 'package_premium', type: 'numeric' },
      { name: 'maker_pays_taker', type: 'boolean' },
      { name: 'nonce', type: 'numeric' },
      { name: 'referrer', type: 'text' },
      { name: 'directions', type: 'smallint[]' },
      { name: 'quote_id', type: 'uuid', value: (r) => quoteOf.get(r) ?? null },
    ],
    { constants: [{ name: 'chain_id', value: chainId, type: 'integer' }] },
  );
  return filled;
}
