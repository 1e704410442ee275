import type { OnChainOrderState } from '../../wire/src/order.wire';
import type { Hex } from '../rpc/rpc';

/**
 * The rows projectors make from decoded logs (pure data: no I/O). Which table takes which rows,
 * and how the rows one batch projected into a table combine before they are written, is
 * declared once, in `DERIVED_TABLES` (indexer/store/derived-tables.ts).
 * Big integers are decimal strings, addresses checksummed, hashes lower-case.
 */
export interface RowPosition {
  block_number: number;
  block_hash: Hex;
  block_timestamp: number;
  log_index: number;
  tx_hash: Hex;
}

export interface PairRow {
  address: Hex;
  factory: Hex;
  token0: Hex;
  token1: Hex;
  premium_token: Hex;
  created_block: number;
  created_block_hash: Hex;
  created_log_index: number;
  tx_hash: Hex;
}

export interface EventRow extends RowPosition {
  address: Hex;
  event_name: string;
  args: Record<string, string | boolean | number[]>;
}

export interface TransferRow extends RowPosition {
  pair: Hex;
  caller: Hex;
  sender: Hex;
  receiver: Hex;
  option_id: string;
  amount: string;
}

/** One log's change of one holder's balance of one option id (a projector's row). */
export interface BalanceChange {
  holder: Hex;
  pair: Hex;
  option_id: string;
  delta: bigint;
  block: number;
}

/** Net change of one holder's balance of one option id in this batch (what is written). */
export interface BalanceDelta {
  holder: Hex;
  pair: Hex;
  option_id: string;
  delta: string;
  /** First and last block of this batch that touched the balance. */
  first_block: number;
  last_block: number;
}

export interface OrderRow {
  pair: Hex;
  order_id: string;
  owner: Hex;
  option_id: string;
  is_buy: boolean;
  price: string;
  amount: string;
  remaining: string;
  state: OnChainOrderState;
  placed_block: number;
  placed_block_hash: Hex;
  placed_log_index: number;
  tx_hash: Hex;
  last_block: number;
  last_log_index: number;
}

/** The state an order placed before this batch ends the batch in, or one log's change of an order's state. */
export interface OrderUpdate {
  pair: Hex;
  order_id: string;
  remaining: string;
  state: OnChainOrderState;
  last_block: number;
  last_log_index: number;
}

export interface SettlementRow extends RowPosition {
  mothership: Hex;
  taker_address_hash: Hex;
  maker: Hex;
  taker: Hex;
  offer_digest: Hex;
  premium_token: Hex;
  package_premium: string;
  maker_pays_taker: boolean;
  nonce: string;
  referrer: Hex;
  directions: number[];
}

/** A projector's row for the order book: an order placed, or a later change of its state. */
export type OrderEvent = { placed: OrderRow } | { change: OrderUpdate };

/** Orders as a batch writes them: those it placed in their final state, and updates of older ones. */
export interface OrderBatch {
  placed: OrderRow[];
  updates: OrderUpdate[];
}

/** The owner placed an API-recorded order: its intent hash and the book order it became. */
export interface OrderIntentRow extends RowPosition {
  pair: Hex;
  order_id: string;
  intent_hash: Hex;
  owner: Hex;
  nonce_prefix: string;
  nonce: string;
}

/** An API-signed exclusive fill used on a pair. */
export interface ExclusiveFillUseRow extends RowPosition {
  pair: Hex;
  exclusive_fill_id_hash: Hex;
  maker: Hex;
  reward_destination: Hex;
  intent_data_hash: Hex;
  reward_per_unit: string;
  total_reward: string;
}

/**
 * A BondVault deposit, withdrawal request or withdrawal; `balance` is the maker's bond in that
 * token after it. A request's `amount` is the whole pending amount from then on (until the next
 * request or the withdrawal), and `withdrawable_at` when it may be paid out (unix seconds).
 */
export interface BondEventRow extends RowPosition {
  vault: Hex;
  maker: Hex;
  token: Hex;
  kind: 'deposit' | 'request' | 'withdraw';
  amount: string;
  balance: string;
  withdrawable_at: string | null;
}
