import { MAX_LEGS, POLARITIES, type Direction, type Polarity, type Structure } from './constants';
import { readArray } from './fields';
import { at, Problems } from './problems';

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

/** Reads a polarity (`b_is_buy` | `a_is_buy`), recording a problem when it is neither. */
export function readPolarity(v: unknown, path: string, problems: Problems): Polarity | undefined {
  if (typeof v === 'string' && (POLARITIES as readonly string[]).includes(v)) return v as Polarity;
  problems.add(path, 'must be "b_is_buy" (buy / long the strategy) or "a_is_buy" (sell / short it)');
  return undefined;
}

/** Parses a polarity or throws ValidationError at `path`. */
export function parsePolarity(v: unknown, path = 'polarity'): Polarity {
  const problems = new Problems();
  const p = readPolarity(v, path, problems);
  problems.throwIfAny();
  return p as Polarity;
}

/**
 * Parses an explicit directions array (Dutch requests carry one): each item 0 | 1 | "buy" | "sell";
 * `legs`, when given, is the required length.
 */
export function parseDirections(v: unknown, opts: { path?: string; legs?: number } = {}): Direction[] {
  const path = opts.path ?? 'directions';
  const problems = new Problems();
  const list = readArray(v, path, problems, opts.legs ?? 1, opts.legs ?? MAX_LEGS);
  const out: Direction[] = [];
  list?.forEach((item, i) => {
    const s = typeof item === 'string' ? item.toLowerCase() : item;
    if (s === 0 || s === 'buy') out.push(0);
    else if (s === 1 || s === 'sell') out.push(1);
    else problems.add(at(path, i), 'must be 0 or "buy", or 1 or "sell"');
  });
  problems.throwIfAny();
  return out;
}
