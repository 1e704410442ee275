import { encodePacked, getAddress, keccak256, toHex, type Address, type Hex } from 'viem';
import type { z } from 'zod';
import type { orderWire } from '../order.wire';
import { eip712TypeString } from './typed-data';

/**
 * The on-chain shape of a CLOB order (`POST /api/orders`), defined once: the API stores its
 * intent hash, the pair's `OrderIntentPlaced` event carries the same hash, and the two meet
 * there. Field order is part of the type hash (ProtocolHashing.sol, ORDER_INTENT_TYPEHASH).
 */
export const ORDER_INTENT_TYPES = {
  OrderIntent: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'noncePrefix', type: 'uint64' },
    { name: 'nonce', type: 'uint256' },
    { name: 'options6909Contract', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'fillerRewardMaxPerMintedUnit', type: 'uint256' },
    { name: 'fillerRewardMinPerMintedUnit', type: 'uint256' },
    { name: 'optionType', type: 'uint8' },
    { name: 'startExecutionTimestamp', type: 'uint40' },
    { name: 'expiryTimestamp', type: 'uint40' },
    { name: 'premiumStart', type: 'uint256' },
    { name: 'premiumEnd', type: 'uint256' },
    { name: 'premiumDecayRateBpsPerSecond', type: 'uint32' },
    { name: 'strikeStart', type: 'uint144' },
    { name: 'strikeEnd', type: 'uint144' },
    { name: 'strikeDecayRateBpsPerSecond', type: 'uint32' },
    { name: 'startMinFill', type: 'uint256' },
    { name: 'minFillDecayRatePerSecond', type: 'uint256' },
    { name: 'buyOrSell', type: 'uint8' },
    { name: 'intentStartTime', type: 'uint40' },
    { name: 'intentExpiry', type: 'uint40' },
    { name: 'orderOnExpiry', type: 'uint8' },
  ],
} as const;

/** The OrderIntent struct (ProtocolTypes.sol); its JSON form is the order request of docs/ORDERS.md. */
export interface OrderIntent {
  from: Address;
  to: Address;
  noncePrefix: bigint;
  nonce: bigint;
  options6909Contract: Address;
  amount: bigint;
  fillerRewardMaxPerMintedUnit: bigint;
  fillerRewardMinPerMintedUnit: bigint;
  optionType: number;
  startExecutionTimestamp: number;
  expiryTimestamp: number;
  premiumStart: bigint;
  premiumEnd: bigint;
  premiumDecayRateBpsPerSecond: number;
  strikeStart: bigint;
  strikeEnd: bigint;
  strikeDecayRateBpsPerSecond: number;
  startMinFill: bigint;
  minFillDecayRatePerSecond: bigint;
  buyOrSell: number;
  intentStartTime: number;
  intentExpiry: number;
  orderOnExpiry: number;
}

/** An order's JSON form, as the API answers and stores it: the fields its OrderIntent is read from. */
export type OrderIntentJson = Pick<z.output<typeof orderWire>, 'destination' | 'data' | 'amount'>;

/**
 * The OrderIntent of an order's JSON form: what the owner passes to the pair's placeIntent, and
 * what the intent hash is taken of. Integers come as decimal strings or, where the order sent
 * them so, JSON integers; addresses are checksummed.
 */
export function orderIntentFromJson(j: OrderIntentJson): OrderIntent {
  const { destination: t, data: d } = j;
  return {
    from: getAddress(t.from),
    to: getAddress(t.to),
    noncePrefix: BigInt(t.nonce.prefix),
    nonce: BigInt(t.nonce.nonce),
    options6909Contract: getAddress(d.options6909Contract),
    amount: BigInt(j.amount),
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

const ORDER_INTENT_TYPEHASH = keccak256(toHex(eip712TypeString(ORDER_INTENT_TYPES, 'OrderIntent'))).slice(2);

/** Each field's encoder to one 32-byte word (hex, no 0x); every field is an address or a uintN. */
const FIELD_WORDS = ORDER_INTENT_TYPES.OrderIntent.map(({ name, type }) => {
  const key = name as keyof OrderIntent;
  if (type === 'address') {
    return (o: OrderIntent) => {
      const a = o[key] as string;
      if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new RangeError(`OrderIntent.${name} is not an address`);
      return a.slice(2).toLowerCase().padStart(64, '0');
    };
  }
  const max = (1n << BigInt(type.slice(4))) - 1n;
  return (o: OrderIntent) => {
    const v = BigInt(o[key] as bigint | number);
    if (v < 0n || v > max) throw new RangeError(`OrderIntent.${name} does not fit ${type}`);
    return v.toString(16).padStart(64, '0');
  };
});

/**
 * The order's intent hash: EIP-712 hashStruct of the OrderIntent (equals the pair's
 * hashOrderIntent). Encoded by hand: every field is one static word, and a generic typed-data
 * encoder costs about a hundred times more, on the order create path.
 */
export function orderIntentHash(intent: OrderIntent): Hex {
  let words = ORDER_INTENT_TYPEHASH;
  for (const w of FIELD_WORDS) words += w(intent);
  return keccak256(`0x${words}`);
}

/** An exclusive fill's intentDataHash: keccak256 of its orders' intent hashes, packed in order. */
export function intentDataHash(intentHashes: readonly Hex[]): Hex {
  return keccak256(encodePacked(['bytes32[]'], [intentHashes as Hex[]]));
}
