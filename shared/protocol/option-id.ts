import { MAX_TIMESTAMP, UINT144_MAX, type OptionType } from '../../wire/src/protocol/constants';

/**
 * ERC-6909 token id of an option series within one pair. Bits, least significant first:
 * [0,144) strike_wad, [144,184) expiry_timestamp, [184,224) start_exercise_timestamp,
 * [224,232) option_type, [232,256) zero (reserved). The pair already fixes the tokens, so
 * these four fields identify a series; the id sorts by type, then start, expiry, strike.
 */
export interface OptionSeries {
  option_type: OptionType;
  strike_wad: bigint;
  expiry_timestamp: number;
  start_exercise_timestamp: number;
}

const STRIKE_BITS = 144n;
const TIME_BITS = 40n;
const TIME_MASK = (1n << TIME_BITS) - 1n;
const EXPIRY_SHIFT = STRIKE_BITS;
const START_SHIFT = STRIKE_BITS + TIME_BITS;
const TYPE_SHIFT = STRIKE_BITS + 2n * TIME_BITS;
const RESERVED_SHIFT = TYPE_SHIFT + 8n;

function checkTimestamp(v: number, what: string): void {
  if (!Number.isInteger(v) || v < 0 || v > MAX_TIMESTAMP) throw new RangeError(`${what} ${v} does not fit uint40`);
}

/** Packs an option series into its uint256 ERC-6909 id (same as OptionIds.encode in Solidity). */
export function encodeOptionId(s: OptionSeries): bigint {
  if (s.option_type !== 0 && s.option_type !== 1) throw new RangeError(`option_type ${String(s.option_type)} is not 0 or 1`);
  if (s.strike_wad < 0n || s.strike_wad > UINT144_MAX) throw new RangeError(`strike_wad ${s.strike_wad} does not fit uint144`);
  checkTimestamp(s.expiry_timestamp, 'expiry_timestamp');
  checkTimestamp(s.start_exercise_timestamp, 'start_exercise_timestamp');
  return (
    (BigInt(s.option_type) << TYPE_SHIFT) | (BigInt(s.start_exercise_timestamp) << START_SHIFT) | (BigInt(s.expiry_timestamp) << EXPIRY_SHIFT) | s.strike_wad
  );
}

/** Unpacks an ERC-6909 id; throws when reserved bits are set or the type is not 0/1. */
export function decodeOptionId(id: bigint): OptionSeries {
  if (id < 0n || id >> RESERVED_SHIFT !== 0n) throw new RangeError(`option id ${id} has reserved bits set`);
  const type = Number((id >> TYPE_SHIFT) & 0xffn);
  if (type !== 0 && type !== 1) throw new RangeError(`option id ${id} has option_type ${type}`);
  return {
    option_type: type,
    strike_wad: id & UINT144_MAX,
    expiry_timestamp: Number((id >> EXPIRY_SHIFT) & TIME_MASK),
    start_exercise_timestamp: Number((id >> START_SHIFT) & TIME_MASK),
  };
}
