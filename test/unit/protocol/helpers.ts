import { ValidationError, type FieldProblem } from '../../../shared/platform/errors';

/** The details of the ValidationError `fn` throws; fails the test when it throws nothing or something else. */
export function problemsOf(fn: () => unknown): FieldProblem[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.details ?? [];
    throw err;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

/** The single problem `fn` reports, as `path: message`. */
export function onlyProblem(fn: () => unknown): string {
  const list = problemsOf(fn);
  if (list.length !== 1) throw new Error(`expected exactly one problem, got ${JSON.stringify(list)}`);
  return `${list[0].path}: ${list[0].message}`;
}

export const NOW = 1_750_000_000;
export const EXPIRY = NOW + 7 * 86_400;
export const PAIR = '0xf73bB65aC14A1A34e01EaF68ff5bb1e672ADc442';
export const OTHER_PAIR = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

/** A valid raw intent as a client would send it, with overrides. */
export function rawIntent(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    pair6909_contract: PAIR.toLowerCase(),
    option_type: 'call',
    structure: 0,
    start_exercise_timestamp: 0,
    expiry_timestamp: EXPIRY,
    strike_wad: '3000000000',
    amount: '1000000000000000000',
    ...over,
  };
}
