import { encodePacked, hashStruct, keccak256, type Address, type Hex } from 'viem';

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

/** The order's intent hash: EIP-712 hashStruct of the OrderIntent (equals the pair's hashOrderIntent). */
export function orderIntentHash(intent: OrderIntent): Hex {
  return hashStruct({ types: ORDER_INTENT_TYPES, primaryType: 'OrderIntent', data: intent });
}

/** An exclusive fill's intentDataHash: keccak256 of its orders' intent hashes, packed in order. */
export function intentDataHash(intentHashes: readonly Hex[]): Hex {
  return keccak256(encodePacked(['bytes32[]'], [intentHashes as Hex[]]));
}
