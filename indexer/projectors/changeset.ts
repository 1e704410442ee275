import type { Hex } from '../rpc/rpc';

/**
 * What a batch of logs changes, as plain rows. Handlers build it from decoded logs alone (no
 * I/O); the store writes it in one transaction with the cursor that covers it.
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

/** Net change of one holder's balance of one option id in this batch. */
export interface BalanceDelta {
  holder: Hex;
  pair: Hex;
  option_id: string;
  delta: string;
  /** First and last block of this batch that touched the balance. */
  first_block: number;
  last_block: number;
}

export type OrderState = 'open' | 'filled' | 'cancelled';

export interface OrderRow {
  pair: Hex;
  order_id: string;
  owner: Hex;
  option_id: string;
  is_buy: boolean;
  price: string;
  amount: string;
  remaining: string;
  state: OrderState;
  placed_block: number;
  placed_block_hash: Hex;
  placed_log_index: number;
  tx_hash: Hex;
  last_block: number;
  last_log_index: number;
}

/** The state an order placed before this batch ends the batch in. */
export interface OrderUpdate {
  pair: Hex;
  order_id: string;
  remaining: string;
  state: OrderState;
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

export interface Changeset {
  pairs: PairRow[];
  /** Every decoded log except ERC-6909 transfers, which are in `transfers`. */
  events: EventRow[];
  transfers: TransferRow[];
  balances: BalanceDelta[];
  ordersPlaced: OrderRow[];
  orderUpdates: OrderUpdate[];
  settlements: SettlementRow[];
}

export const emptyChangeset = (): Changeset => ({
  pairs: [],
  events: [],
  transfers: [],
  balances: [],
  ordersPlaced: [],
  orderUpdates: [],
  settlements: [],
});
