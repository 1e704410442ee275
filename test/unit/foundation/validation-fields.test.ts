import { z } from 'zod';
import { ValidationError } from '../../../shared/platform/errors';
import {
  ADDRESS_MESSAGE,
  evmAddress,
  parsedAt,
  parseOrThrow,
  rebuiltWhenChanged,
  required,
  ruleIssue,
  sizedArray,
  unknownKeys,
  whenObject,
} from '../../../shared/platform/validation';

/** The `path: message` of each detail `fn` throws, in order. */
function details(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return (err.details ?? []).map((d) => `${d.path}: ${d.message}`);
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('validation field schemas', () => {
  it('a required field is told so when missing or null, and what it must be otherwise', () => {
    const s = z.object({ a: required(evmAddress) });
    expect(details(() => parseOrThrow(s, {}))).toEqual(['a: is required']);
    expect(details(() => parseOrThrow(s, { a: null }))).toEqual(['a: is required']);
    expect(details(() => parseOrThrow(s, { a: 7 }))).toEqual([`a: ${ADDRESS_MESSAGE}`]);
    expect(parseOrThrow(s, { a: '0x5fbdb2315678afecb367f032d93f642f64180aa3' })).toEqual({ a: '0x5FbDB2315678afecb367f032d93F642f64180aa3' });
  });

  it('an array is measured before its items are read: an oversized one is one detail', () => {
    const s = sizedArray(z.number({ message: 'must be a number' }), 1, 3);
    expect(
      details(() =>
        parseOrThrow(
          s,
          Array.from({ length: 10_000 }, () => 'x'),
          'list',
        ),
      ),
    ).toEqual(['list: must have between 1 and 3 items']);
    expect(details(() => parseOrThrow(s, [], 'list'))).toEqual(['list: must have between 1 and 3 items']);
    expect(details(() => parseOrThrow(s, 'x', 'list'))).toEqual(['list: must be an array']);
    expect(details(() => parseOrThrow(s, [1, 'x'], 'list'))).toEqual(['list[1]: must be a number']);
    expect(details(() => parseOrThrow(sizedArray(z.number(), 2, 2), [1], 'pair'))).toEqual(['pair: must have exactly 2 items']);
  });

  /** `lo` and `hi` each read on their own; the rule between them judges only what was read. */
  const range = z
    .looseObject(
      { lo: required(z.number({ message: 'must be a number' })), hi: required(z.number({ message: 'must be a number' })) },
      { message: 'must be an object' },
    )
    .superRefine((v, ctx) => {
      unknownKeys(ctx, v, new Set(['lo', 'hi']), 'is not a field');
      if (parsedAt(ctx, ['lo']) && parsedAt(ctx, ['hi']) && v.lo > v.hi) ruleIssue(ctx, ['hi'], 'must not be below lo');
    }, whenObject);

  it('rules between fields run beside failures of other fields, and never on a value that could not be read', () => {
    expect(details(() => parseOrThrow(range, { lo: 5, hi: 1, extra: true, more: 1 }))).toEqual([
      'extra: is not a field',
      'more: is not a field',
      'hi: must not be below lo',
    ]);
    expect(details(() => parseOrThrow(range, { lo: 'x', hi: 1 }))).toEqual(['lo: must be a number']);
    expect(details(() => parseOrThrow(range, { hi: 1, extra: 1 }))).toEqual(['lo: is required', 'extra: is not a field']);
    expect(details(() => parseOrThrow(range, [1, 2]))).toEqual(['(body): must be an object']);
  });

  it('a rule issue leaves its value readable for the rules after it', () => {
    const s = z.object({ n: z.number() }).superRefine((v, ctx) => {
      ruleIssue(ctx, ['n'], 'first rule');
      if (parsedAt(ctx, ['n'])) ruleIssue(ctx, ['m'], `second rule saw ${v.n}`);
    });
    expect(details(() => parseOrThrow(s, { n: 3 }))).toEqual(['n: first rule', 'm: second rule saw 3']);
  });

  it('a schema built from the clock is reused while its arguments stay and rebuilt when they change', () => {
    let builds = 0;
    const at = rebuiltWhenChanged((now: number, path: string) => {
      builds++;
      return { now, path };
    });
    const first = at(100, 'intents');
    expect(at(100, 'intents')).toBe(first);
    expect(builds).toBe(1);
    expect(at(101, 'intents')).toEqual({ now: 101, path: 'intents' });
    expect(at(101, 'legs').path).toBe('legs');
    expect(builds).toBe(3);
  });
});
