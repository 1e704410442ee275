import { getAddress } from 'viem';
import { ORDER_INTENT_TYPES, orderIntentFromJson, orderIntentHash, intentDataHash, type OrderIntent } from '@options-rfq/wire';
import { exclusiveFillTypedData, EXCLUSIVE_FILL_TYPES, type ExclusiveFill } from '@options-rfq/wire';
import type { CreatedExclusiveFill, OrderView } from './api.types';

/*
 * Orders on chain: the very OrderIntent definition the server hashes (shared/protocol), so the
 * intent an owner places is the one the API recorded, and the exclusive fill a maker submits is
 * the struct the service signed.
 */
export { ORDER_INTENT_TYPES, orderIntentHash, intentDataHash, exclusiveFillTypedData, EXCLUSIVE_FILL_TYPES };
export type { OrderIntent, ExclusiveFill };

/** The OrderIntent struct of an order as the API answers it: what the owner passes to the pair's placeIntent. */
export function orderIntent(order: Pick<OrderView, 'destination' | 'data' | 'amount'>): OrderIntent {
  return orderIntentFromJson(order);
}

/** The signed ExclusiveFill struct of an exclusive fill answer, as the pair's fillExclusive takes it. */
export function exclusiveFillMessage(fill: Pick<CreatedExclusiveFill, 'signed_message'>): ExclusiveFill {
  const m = fill.signed_message;
  return {
    exclusiveFillId: m.exclusiveFillId as `0x${string}`,
    maker: getAddress(m.maker),
    orderIds: m.orderIds as `0x${string}`[],
    rewardDestination: getAddress(m.rewardDestination),
    intentDataHash: m.intentDataHash as `0x${string}`,
    expireTime: m.expireTime,
  };
}
