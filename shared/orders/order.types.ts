import type { OrderJson } from './order-request';

import type { ExclusiveFillState, OnChainOrderState, OrderPlacement, OrderState } from '../../wire/src/order.wire';

/** Order and exclusive fill states, and placements: the lists of order.wire.ts. */
export type { ExclusiveFillState, OrderPlacement, OrderState };

export interface OrderRow {
  id: string;
  chain_id: number;
  owner_address: `0x${string}`;
  pair: `0x${string}`;
  premium_token: `0x${string}`;
  nonce_prefix: string;
  nonce: string;
  amount: string;
  intent_hash: `0x${string}`;
  destination: OrderJson['destination'];
  data: OrderJson['data'];
  state: OrderState;
  expires_at: Date;
  exclusive_fill_id: string | null;
  created_at: Date;
  closed_at: Date | null;
  fill_tx_hash: string | null;
  /** Recorded with the owner's own credential (its SIWE session or its maker key), not anonymously or by a delegate. */
  recorded_by_owner: boolean;
  /** The owner cancelled while a live exclusive fill held it: applied when the fill ends. */
  cancel_requested_at: Date | null;
}

/**
 * How far an order is confirmed by its owner: `placed` (the owner put the intent in the book on
 * chain), `recorded_by_owner` (recorded with the owner's own credential, not yet placed), or
 * `unconfirmed` (recorded by anyone else: visible by id only, never in owner lists).
 */

/** Where the order is on chain, once the indexer saw its owner place it. */
export interface OnChainOrder {
  pair_order_id: string;
  remaining: string;
  state: OnChainOrderState;
  placed_tx_hash: string;
}

export interface ExclusiveFillRow {
  id: string;
  id_hash: `0x${string}`;
  chain_id: number;
  pair: `0x${string}`;
  maker: `0x${string}`;
  reward_destination: `0x${string}`;
  order_ids: string[];
  intent_data_hash: `0x${string}`;
  signature: `0x${string}`;
  state: ExclusiveFillState;
  expire_time: Date;
  created_at: Date;
  closed_at: Date | null;
  used_tx_hash: string | null;
}
