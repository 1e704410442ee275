import { apiIdToBytes32 } from '../protocol';
import type { ExclusiveFillRow, OnChainOrder, OrderPlacement, OrderRow } from './order.types';
import type { FillBondRequirements } from '../bonds';
import type { z } from 'zod';
import type { exclusiveFillEventWire, exclusiveFillWire, orderWire } from '../../wire/src/order.wire';

export type OrderView = z.output<typeof orderWire>;
export type ExclusiveFillView = z.output<typeof exclusiveFillWire>;
export type ExclusiveFillEventView = z.output<typeof exclusiveFillEventWire>;

/** Placed on chain beats everything; else who recorded it decides (docs/ORDERS.md, "Who may record an order"). */
export function placementOf(o: Pick<OrderRow, 'recorded_by_owner'>, onChain: OnChainOrder | null): OrderPlacement {
  if (onChain) return 'placed';
  return o.recorded_by_owner ? 'recorded_by_owner' : 'unconfirmed';
}

/**
 * What clients see of orders and exclusive fills. An order is public once placed on chain,
 * so its view is the same for everyone; an exclusive fill is seen by its maker only.
 */
export function orderView(o: OrderRow, onChain: OnChainOrder | null): OrderView {
  const placement = placementOf(o, onChain);
  return {
    id: o.id,
    chain_id: o.chain_id,
    owner_address: o.owner_address,
    state: o.state,
    intent_hash: o.intent_hash,
    destination: o.destination,
    data: o.data,
    amount: o.amount,
    expires_at: new Date(o.expires_at).toISOString(),
    created_at: new Date(o.created_at).toISOString(),
    closed_at: o.closed_at ? new Date(o.closed_at).toISOString() : null,
    fill_tx_hash: o.fill_tx_hash,
    on_chain: onChain,
    placement,
    confirmed: placement !== 'unconfirmed',
    ...(o.cancel_requested_at && o.state === 'open' ? { cancel_pending: true as const } : {}),
  };
}

/** The maker's exclusive fill: what it signs over and how to submit it (docs/ORDERS.md). */
export function exclusiveFillView(f: ExclusiveFillRow, requirements: FillBondRequirements): ExclusiveFillView {
  const expireTime = Math.floor(new Date(f.expire_time).getTime() / 1000);
  return {
    exclusive_fill_id: f.id,
    state: f.state,
    chain_id: f.chain_id,
    clob: f.pair,
    maker: f.maker,
    order_ids: f.order_ids,
    exclusive_fill: { expire_time: new Date(f.expire_time).toISOString(), reward_destination: f.reward_destination, intent_data_hash: f.intent_data_hash },
    signature: f.signature,
    signed_message: {
      exclusiveFillId: f.id_hash,
      maker: f.maker,
      orderIds: f.order_ids.map(bytes32Of),
      rewardDestination: f.reward_destination,
      intentDataHash: f.intent_data_hash,
      expireTime,
    },
    fill_bond_requirements: requirements,
  };
}

/** Per premium-token symbol: its address, the minimum bond, and the maker's indexed bond. */
export type { FillBondRequirements } from '../bonds';

/** What the maker hears on rfq_maker:<address> when its fill changes state. */
export function exclusiveFillEvent(f: ExclusiveFillRow): ExclusiveFillEventView {
  return {
    exclusive_fill_id: f.id,
    chain_id: f.chain_id,
    state: f.state,
    order_ids: f.order_ids,
    expire_time: new Date(f.expire_time).toISOString(),
    used_tx_hash: f.used_tx_hash,
  };
}

const bytes32Of = (id: string) => apiIdToBytes32(id);
