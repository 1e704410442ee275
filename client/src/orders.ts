import { getAddress } from 'viem';
import { ORDER_INTENT_TYPES, orderIntentHash, intentDataHash, type OrderIntent } from '@options-rfq/wire';
import { exclusiveFillTypedData, EXCLUSIVE_FILL_TYPES, type ExclusiveFill } from '@options-rfq/wire';
import type { CreatedExclusiveFill, OrderView } from './api-types';

/*
 * Orders on chain: the very OrderIntent definition the server hashes (shared/protocol), so the
 * intent an owner places is the one the API recorded, and the exclusive fill a maker submits is
 * the struct the service signed.
 */
export { ORDER_INTENT_TYPES, orderIntentHash, intentDataHash, exclusiveFillTypedData, EXCLUSIVE_FILL_TYPES };
export type { OrderIntent, ExclusiveFill };

/** The OrderIntent struct of an order as the API answers it: what the owner passes to the pair's placeIntent. */
export function orderIntent(order: Pick<OrderView, 'destination' | 'data' | 'amount'>): OrderIntent {
  const { destination: t, data: d } = order;
  return {
    from: getAddress(t.from),
    to: getAddress(t.to),
    noncePrefix: BigInt(t.nonce.prefix),
    nonce: BigInt(t.nonce.nonce),
    options6909Contract: getAddress(d.options6909Contract),
    amount: BigInt(order.amount),
    fillerRewardMaxPerMintedUnit: BigInt(d.rewardLimits.fillerRewardMaxPerMintedUnit),
    fillerRewardMinPerMintedUnit: BigInt(d.rewardLimits.fillerRewardMinPerMintedUnit),
    optionType: d.pairKey.optionType,
    startExecutionTimestamp: d.pairKey.startExecutionTimeStamp,
    expiryTimestamp: d.pairKey.expiryTimestamp,
    premiumStart: BigInt(d.decayPremium.premiumStart),
    premiumEnd: BigInt(d.decayPremium.premiumEnd),
    premiumDecayRateBpsPerSecond: d.decayPremium.decayRateBpsPerSecond,
    strikeStart: BigInt(d.decayStrike.strikeStart),
    strikeEnd: BigInt(d.decayStrike.strikeEnd),
    strikeDecayRateBpsPerSecond: d.decayStrike.decayRateBpsPerSecond,
    startMinFill: BigInt(d.decayMinFill.startMinFill),
    minFillDecayRatePerSecond: BigInt(d.decayMinFill.decayRatePerSecond),
    buyOrSell: d.buyOrSell,
    intentStartTime: d.intentStartTime,
    intentExpiry: d.intentExpiry,
    orderOnExpiry: d.orderOnExpiry,
  };
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
