import { z } from 'zod';
import { wireAddress, wireBytes32, wireChainId, wireDecimal, wireHex, wireTime, wireUnixSeconds } from './formats';

/**
 * The one home of an order's and an exclusive fill's wire form: their states as data (the
 * repositories' SQL literals in shared/orders/order.sql.ts and test/integration/foundation/state-checks.test.ts follow them)
 * and the zod schemas of what goes out (REST answers and the `exclusive_fill_*` socket payload).
 * order.views.ts is typed from these schemas; api/routes/orders.http.ts references them.
 */

/** An order's states (orders.state, docs/ORDERS.md): open -> filled | cancelled | expired. */
export const ORDER_STATES = ['open', 'filled', 'cancelled', 'expired'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** A book order's states as the indexer reads them from the chain (indexer_orders.state). */
export const ON_CHAIN_ORDER_STATES = ['open', 'filled', 'cancelled'] as const;
export type OnChainOrderState = (typeof ON_CHAIN_ORDER_STATES)[number];

/** An exclusive fill's states (exclusive_fills.state): active -> used | expired. */
export const EXCLUSIVE_FILL_STATES = ['active', 'used', 'expired'] as const;
export type ExclusiveFillState = (typeof EXCLUSIVE_FILL_STATES)[number];

export const ORDER_PLACEMENTS = ['placed', 'recorded_by_owner', 'unconfirmed'] as const;
export type OrderPlacement = (typeof ORDER_PLACEMENTS)[number];

const destinationWire = z.strictObject({
  from: wireAddress,
  to: wireAddress,
  nonce: z.strictObject({ prefix: z.number().int().min(0), nonce: wireDecimal }),
});

/**
 * A field the spec types as an integer, echoed in the form the request sent it (docs/ORDERS.md,
 * "Number forms"): a JSON integer (a safe integer) stays one, a decimal string stays a string.
 */
const echoedUint = z.union([wireDecimal, z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)]).meta({
  description: 'As the request sent it: a JSON integer (below 2^53) stays an integer, a decimal string stays a string.',
});

const dataWire = z.strictObject({
  options6909Contract: wireAddress,
  rewardLimits: z.strictObject({ fillerRewardMaxPerMintedUnit: echoedUint, fillerRewardMinPerMintedUnit: echoedUint }),
  pairKey: z.strictObject({ optionType: z.number().int(), startExecutionTimeStamp: wireUnixSeconds, expiryTimestamp: wireUnixSeconds }),
  decayPremium: z.strictObject({ premiumStart: echoedUint, premiumEnd: echoedUint, decayRateBpsPerSecond: z.number().int() }),
  decayStrike: z.strictObject({ strikeStart: wireDecimal, strikeEnd: wireDecimal, decayRateBpsPerSecond: z.number().int() }),
  decayMinFill: z.strictObject({ startMinFill: wireDecimal, decayRatePerSecond: wireDecimal }),
  buyOrSell: z.number().int(),
  intentStartTime: wireUnixSeconds,
  intentExpiry: wireUnixSeconds,
  orderOnExpiry: z.number().int(),
});

/** An order, as every order route answers it (public once placed on chain). */
export const orderWire = z.strictObject({
  id: z.uuid(),
  chain_id: wireChainId,
  owner_address: wireAddress,
  state: z.enum(ORDER_STATES),
  intent_hash: wireBytes32.meta({ description: "EIP-712 hashStruct of the OrderIntent: the pair's OrderIntentPlaced carries the same hash." }),
  destination: destinationWire,
  data: dataWire,
  amount: wireDecimal,
  expires_at: wireTime.meta({ description: "When the order expires: intentExpiry, or the option's expiry when orderOnExpiry is 1." }),
  created_at: wireTime,
  closed_at: wireTime.nullable(),
  fill_tx_hash: wireBytes32.nullable(),
  on_chain: z
    .strictObject({
      pair_order_id: wireDecimal,
      remaining: wireDecimal,
      state: z.enum(ON_CHAIN_ORDER_STATES),
      placed_tx_hash: wireBytes32,
    })
    .nullable()
    .meta({ description: 'The book order, once the indexer saw the owner place the intent (placeIntent); null before.' }),
  placement: z.enum(ORDER_PLACEMENTS).meta({
    description:
      'placed: the owner put this intent in the book on chain (the real order for its nonce). recorded_by_owner: recorded with the ' +
      "owner's own credential (SIWE session or maker key), not placed yet. unconfirmed: recorded by someone else (no bearer, or a " +
      'delegate); it binds nobody, is visible by id only and never listed.',
  }),
  confirmed: z.boolean().meta({ description: 'placement is not unconfirmed: the order appears in GET /api/orders lists.' }),
  cancel_pending: z.literal(true).optional().meta({
    description:
      'Present on an open order whose owner cancelled it while a live exclusive fill held it: no new fill is granted over it, and it is cancelled when the fill ends (unless the fill is used).',
  }),
});

const bondRequirements = z
  .record(z.string(), z.strictObject({ token: wireAddress, fill_bond_amount: wireDecimal, maker_bond: wireDecimal }))
  .meta({ description: "Per premium-token symbol: the fill bond minimum and the maker's indexed bond." });

/** The maker's exclusive fill, as POST /api/orders/exclusive-fill answers it. */
export const exclusiveFillWire = z.strictObject({
  exclusive_fill_id: z.uuid(),
  state: z.enum(EXCLUSIVE_FILL_STATES),
  chain_id: wireChainId,
  clob: wireAddress,
  maker: wireAddress,
  order_ids: z.array(z.uuid()),
  exclusive_fill: z.strictObject({ expire_time: wireTime, reward_destination: wireAddress, intent_data_hash: wireBytes32 }),
  signature: wireHex.meta({
    description: 'The service signer\'s EIP-712 signature over signed_message (domain "ExclusiveFill", version "1", the mothership).',
  }),
  signed_message: z
    .strictObject({
      exclusiveFillId: wireBytes32,
      maker: wireAddress,
      orderIds: z.array(wireBytes32),
      rewardDestination: wireAddress,
      intentDataHash: wireBytes32,
      expireTime: wireUnixSeconds,
    })
    .meta({ description: "The ExclusiveFill struct as signed: pass it with the signature to the pair's fillExclusive." }),
  fill_bond_requirements: bondRequirements,
});

/** `exclusive_fill_issued` / `_used` / `_expired` on the maker's topic: its fill's new state. */
export const exclusiveFillEventWire = z.strictObject({
  exclusive_fill_id: z.uuid(),
  chain_id: wireChainId,
  state: z.enum(EXCLUSIVE_FILL_STATES),
  order_ids: z.array(z.uuid()),
  expire_time: wireTime,
  used_tx_hash: wireBytes32.nullable(),
});
