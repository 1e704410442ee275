import { z } from 'zod';
import { wireChainId, wireUnixSeconds } from './formats';

/*
 * The bodies of POST /api/orders and POST /api/exclusive-fill as a client sends them. The server
 * parses an order with its own parser (shared/orders/order-request.ts), which names every bad
 * field; these schemas document the body and type the client.
 */

/** Decay rates in basis points per second: at most 10,000 (the whole start value in one second). */
export const MAX_DECAY_BPS_PER_SECOND = 10_000;

export const addressIn = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .meta({ description: 'EVM address, any case.' });
const uintIn = (what: string) =>
  z.union([z.string().regex(/^(0|[1-9][0-9]*)$/), z.number().int().min(0)]).meta({ description: `${what}: a decimal string (or a JSON integer below 2^53).` });
const bps = z
  .number()
  .int()
  .min(0)
  .max(MAX_DECAY_BPS_PER_SECOND)
  .meta({ description: `Basis points per second, 0 to ${MAX_DECAY_BPS_PER_SECOND}.` });
const unixIn = z.union([wireUnixSeconds, z.string().regex(/^(0|[1-9][0-9]{0,15})$/)]).meta({ description: 'Unix seconds.' });

const destinationIn = z.strictObject({
  from: addressIn.meta({ description: "The owner; with a bearer, the bearer's wallet." }),
  to: addressIn.meta({ description: "The order's CLOB (data.options6909Contract) or the chain's mothership." }),
  nonce: z.strictObject({
    prefix: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({ description: 'uint64 on chain.' }),
    nonce: uintIn('uint256'),
  }),
});

const dataIn = z.strictObject({
  options6909Contract: addressIn.meta({ description: 'A known pair (CLOB) of the chain.' }),
  rewardLimits: z.strictObject({ fillerRewardMaxPerMintedUnit: uintIn('uint256'), fillerRewardMinPerMintedUnit: uintIn('uint256, at most the max') }),
  pairKey: z.strictObject({
    optionType: z.union([z.literal(0), z.literal(1)]).meta({ description: '0 call, 1 put.' }),
    startExecutionTimeStamp: unixIn.meta({ description: '0 (American) or equal to expiryTimestamp (European).' }),
    expiryTimestamp: unixIn.meta({ description: 'In the future, at most now + ORDER_MAX_HORIZON_SECONDS.' }),
  }),
  decayPremium: z.strictObject({ premiumStart: uintIn('uint256'), premiumEnd: uintIn('uint256'), decayRateBpsPerSecond: bps }),
  decayStrike: z.strictObject({ strikeStart: uintIn('uint144, at least 1'), strikeEnd: uintIn('uint144, at least 1'), decayRateBpsPerSecond: bps }),
  decayMinFill: z.strictObject({ startMinFill: uintIn('uint256, at most amount'), decayRatePerSecond: uintIn('uint256') }),
  buyOrSell: z.union([z.literal(0), z.literal(1)]).meta({ description: '0 buy, 1 sell.' }),
  intentStartTime: unixIn.meta({ description: 'Before intentExpiry; at most now + ORDER_MAX_HORIZON_SECONDS.' }),
  intentExpiry: unixIn.meta({ description: "In the future, not after the option's expiry, at most now + ORDER_MAX_HORIZON_SECONDS (default one year)." }),
  orderOnExpiry: z.union([z.literal(0), z.literal(1)]).meta({ description: '0: the order expires at intentExpiry; 1: it rests until the option expires.' }),
});

export const orderCreateBody = z
  .strictObject({ chain_id: wireChainId, amount: uintIn('uint256, at least 1'), destination: destinationIn, data: dataIn })
  .meta({ description: "The spec's order table; its on-chain form is the OrderIntent struct (docs/PROTOCOL.md)." });

/** POST /api/exclusive-fill. */
export const exclusiveFillCreateBody = z.strictObject({
  order_ids: z.array(z.uuid()).min(1).meta({ description: 'Orders of one chain and CLOB, each named once (at most EXCLUSIVE_FILL_MAX_ORDERS).' }),
  reward_destination: addressIn.meta({ description: 'Where the pair pays the filler reward.' }),
});
