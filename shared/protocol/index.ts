// Typed data, hashes, legs and the Dutch request the client signs with live in the wire package.
export * from '../../wire/src/protocol';
export { direction, directions, directionSchema, flipPolarity, polaritySchema, parsePolarity, parseDirections } from './directions';
export { recognizeStrategy, STRATEGY_NAMES } from './strategy';
export type { StrategyName, StrategyLeg } from './strategy';
export * from './signatures';
export { ecdsaBackend, recoverDigestSigner } from './ecdsa';
export { keccakBackend, keccak256Bytes, takerAddressHashFast } from './keccak';
export { DutchAwardSigner } from './dutch-award-signer';
export { encodeOptionId, decodeOptionId } from './option-id';
export type { OptionSeries } from './option-id';
