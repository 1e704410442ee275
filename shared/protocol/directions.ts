import { z } from 'zod';
import { parseOrThrow, sizedArray, spelledAs } from '../platform/validation';
import { MAX_LEGS, POLARITIES, type Direction, type Polarity, type Structure } from '../../wire/src/protocol/constants';

/** One leg's direction: (polarity is b_is_buy) XOR (structure is 1) gives 1 (Sell), else 0 (Buy). */
export function direction(polarity: Polarity, structure: Structure): Direction {
  return (polarity === 'b_is_buy') !== (structure === 1) ? 1 : 0;
}

/** Per-leg directions of a quote, in leg order (the spec's polarity x structure table). */
export function directions(polarity: Polarity, structures: readonly Structure[]): Direction[] {
  return structures.map((s) => direction(polarity, s));
}

/** The other polarity: selling what `p` buys. */
export function flipPolarity(p: Polarity): Polarity {
  return p === 'b_is_buy' ? 'a_is_buy' : 'b_is_buy';
}

/** A polarity: `b_is_buy` or `a_is_buy`. */
export const polaritySchema = z.enum(POLARITIES, { message: 'must be "b_is_buy" (buy / long the strategy) or "a_is_buy" (sell / short it)' });

/** Parses a polarity or throws ValidationError at `path`. */
export function parsePolarity(v: unknown, path = 'polarity'): Polarity {
  return parseOrThrow(polaritySchema, v, path);
}

/** One explicit direction: 0 | "buy" | 1 | "sell" (words in any case). */
export const directionSchema = spelledAs<Direction>(
  [
    [0, 0],
    ['buy', 0],
    [1, 1],
    ['sell', 1],
  ],
  'must be 0 or "buy", or 1 or "sell"',
);

/**
 * Parses an explicit directions array (Dutch requests carry one): each item 0 | 1 | "buy" | "sell";
 * `legs`, when given, is the required length.
 */
export function parseDirections(v: unknown, opts: { path?: string; legs?: number } = {}): Direction[] {
  return parseOrThrow(sizedArray(directionSchema, opts.legs ?? 1, opts.legs ?? MAX_LEGS), v, opts.path ?? 'directions');
}
