import fc from 'fast-check';

/**
 * Building blocks of the HTTP fuzz: junk values, near misses of valid values, mutations of a
 * valid request body, and the ways a JSON text goes wrong on the wire.
 */

/** Strings that break naive code: empty, control and NUL characters, RTL marks, emoji, SQL, paths. */
const NASTY = [
  '',
  ' ',
  '\u0000',
  '\u0000abc',
  '\t\n\r',
  'null',
  'undefined',
  'NaN',
  '0x',
  `0x${'g'.repeat(40)}`,
  '../../etc/passwd',
  '%00',
  '%',
  '\u202e',
  '\ud800',
  '💥',
  "' OR 1=1 --",
  '__proto__',
  'constructor',
  '{}',
  '[]',
];

export const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 1, arbitrary: fc.string({ minLength: 300, maxLength: 3000 }) },
);

/** Numbers around every width the service stores: int4, 2^53, uint64, fractions, the extremes. */
const EDGE_NUMBERS = [
  0,
  -0,
  -1,
  1,
  1.5,
  255,
  256,
  2 ** 31 - 1,
  2 ** 31,
  3_000_000_000,
  2 ** 32,
  2 ** 40,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 64,
  -(2 ** 63),
  1e21,
  1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

export const num: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.integer() },
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.maxSafeInteger() },
);

/** Decimal strings where the service expects big integers, including past uint256. */
export const bigDecimal = fc.oneof(fc.bigInt({ min: -(1n << 300n), max: 1n << 300n }).map(String), fc.constantFrom('1e18', '0x10', '01', '+1', '1.0', ' 1'));

const leaf: fc.Arbitrary<unknown> = fc.oneof(text, num, bigDecimal, fc.boolean(), fc.constant(null));

/** Any JSON value, a few levels deep. */
export const junk: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    { weight: 5, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(tie('v'), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), tie('v'), { maxKeys: 4 }) },
  ),
})).v;

/** Values one step away from a valid one: what a careless client sends. */
function nearMiss(v: unknown): fc.Arbitrary<unknown> {
  if (typeof v === 'number') return fc.constantFrom(v + 1, -v, v * 1000, v + 0.5, String(v), 2 ** 31, 3_000_000_000, 2 ** 53, 0);
  if (typeof v === 'string') {
    const alts = [v.toUpperCase(), `${v}0`, v.slice(1), ` ${v}`, v.repeat(40), `${v}\u0000`, Number(v) ? Number(v) : v.length];
    if (/^[0-9]+$/.test(v)) alts.push(`-${v}`, `${v}${'9'.repeat(80)}`, `0${v}`, (1n << 256n).toString(), Number(v));
    return fc.constantFrom(...alts);
  }
  if (typeof v === 'boolean') return fc.constantFrom(String(v), v ? 1 : 0, null);
  return junk;
}

const DROP = Symbol('drop');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A valid body, left alone, or changed field by field: values replaced, dropped, nudged, extra keys added. */
export function mutate(template: unknown): fc.Arbitrary<unknown> {
  if (Array.isArray(template)) {
    const item = template.length > 0 ? mutate(template[0]) : junk;
    return fc.oneof(
      { weight: 4, arbitrary: fc.tuple(...template.map(mutate)) },
      { weight: 1, arbitrary: fc.array(item, { maxLength: 12 }) },
      { weight: 1, arbitrary: junk },
    );
  }
  if (isObject(template)) {
    const entries = Object.entries(template);
    const fields = entries.map(([, v]) =>
      fc.oneof({ weight: 8, arbitrary: fc.constant(v) }, { weight: 2, arbitrary: mutate(v) }, { weight: 1, arbitrary: fc.constant<unknown>(DROP) }),
    );
    const extra = fc.oneof(
      { weight: 6, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), junk, { maxKeys: 2 }) },
    );
    return fc.oneof(
      {
        weight: 6,
        arbitrary: fc.tuple(fc.tuple(...fields), extra).map(([vals, more]) => {
          const out: Record<string, unknown> = { ...more };
          entries.forEach(([k], i) => {
            if (vals[i] !== DROP) out[k] = vals[i];
          });
          return out;
        }),
      },
      { weight: 1, arbitrary: junk.filter((v) => typeof v === 'object') },
    );
  }
  return fc.oneof({ weight: 3, arbitrary: fc.constant(template) }, { weight: 2, arbitrary: junk }, { weight: 2, arbitrary: nearMiss(template) });
}

/** Number literals JSON allows but JavaScript cannot hold exactly. */
const HUGE_LITERALS = [
  '1e400',
  '-1e400',
  '123456789012345678901234567890123456789',
  '1E+2',
  '-0',
  '0.00000000000000000000000001',
  '2147483648',
  '9007199254740993',
];

/**
 * The JSON text of a value, and what goes wrong with JSON on the wire: cut short, a key given
 * twice, a number literal too big for a double, nesting deep enough to blow a recursive walker.
 */
export function jsonText(value: fc.Arbitrary<unknown>): fc.Arbitrary<string | undefined> {
  const asText = value.map((v) => JSON.stringify(v) as string | undefined);
  return fc.oneof(
    { weight: 12, arbitrary: asText },
    { weight: 2, arbitrary: fc.tuple(asText, fc.nat()).map(([t, n]) => (t ?? '').slice(0, n % ((t ?? '').length + 1))) },
    {
      weight: 2,
      arbitrary: fc.tuple(asText, junk, fc.boolean()).map(([t, dup, first]) => {
        if (!t || !t.startsWith('{') || t === '{}') return t;
        const key = /^\{("(?:[^"\\]|\\.)*"):/.exec(t)?.[1] ?? '"chain_id"';
        const pair = `${key}:${JSON.stringify(dup) ?? 'null'}`;
        return first ? `{${pair},${t.slice(1)}` : `${t.slice(0, -1)},${pair}}`;
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(asText, fc.constantFrom(...HUGE_LITERALS))
        .map(([t, lit]) => (t ?? '').replace(/(?<=[:[,])-?\d+(\.\d+)?([eE][+-]?\d+)?(?=[,\]}])/, lit)),
    },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 40_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  );
}

const HEADER_CHAR = fc.oneof(
  { weight: 9, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)) },
);

/** Header values Node's HTTP client will put on the wire (visible ASCII and latin-1). */
export const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: HEADER_CHAR, maxLength: 60 }),
  fc.string({ unit: HEADER_CHAR, minLength: 200, maxLength: 2000 }),
  fc.constantFrom('', ' ', 'null', 'Bearer', 'eyJhbGciOiJub25lIn0.eyJ0eXAiOiJzaXdlIn0.'),
);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** encodeURIComponent that survives lone surrogates (it throws on them). */
export function encode(s: string): string {
  return encodeURIComponent(s.replace(LONE_SURROGATE, '\ufffd'));
}

/** A path segment or query value: encoded text, or percent-encoding that does not decode. */
export function urlPart(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: valid.map(encode) },
    { weight: 3, arbitrary: text.map(encode) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%ZZ', '%E0%A4%A', '%00', '..', '%2F..%2F', '%C0%AF', '%FF%FE', '%u0041', '%25') },
  );
}

/** A list cursor of the shared form (`c1.` + base64url JSON of the sort key), whatever the key. */
export const sharedCursor = (key: unknown) => `c1.${Buffer.from(JSON.stringify(key) ?? '', 'utf8').toString('base64url')}`;

/** A cursor of GET /api/orders (`<created_at>|<id>`, base64url), whatever its members. */
export const orderCursor = (createdAt: string, id = '00000000-0000-4000-8000-000000000000') => Buffer.from(`${createdAt}|${id}`).toString('base64url');

/**
 * Cursors at and past every bound of the sort keys' columns (bigint blocks, integer log indexes,
 * uint256 loan ids, timestamptz times, uuids), of the wrong shape, or forged: each must be a 400
 * naming `cursor` or a page, never a 5xx.
 */
export const CURSOR_EDGES: string[] = [
  ...[
    [0, 0],
    [Number.MAX_SAFE_INTEGER, 2 ** 31 - 1],
    [1, 2 ** 31],
    [9e15, 3e9],
    [2 ** 53, 0],
    [1e300, 0],
    [-1, 0],
    [0, -1],
    [1.5, 0],
    ['1', '2'],
    ['1', (1n << 256n).toString()],
    ['0', ((1n << 256n) - 1n).toString()],
    ['-1', '1'],
    ['9'.repeat(79), '1'],
    [1, 2, 3],
    [],
    [null, null],
    { a: 1 },
    'x',
  ].map(sharedCursor),
  ...[
    '2026-01-01T00:00:00.000Z',
    '9999-12-31T23:59:59.999Z',
    '1',
    '-001000-01-01T00:00:00.000Z',
    '+275760-01-01T00:00:00.000Z',
    '0000-01-01T00:00:00.000Z',
    '2026-02-31T00:00:00.000Z',
    'Tue 1 1 1',
  ].map((t) => orderCursor(t)),
  orderCursor('2026-01-01T00:00:00.000Z', 'x'),
  'c1.',
  'c1.!!!',
  `c1.${Buffer.from('not json').toString('base64url')}`,
  `c2.${Buffer.from('[1,2]').toString('base64url')}`,
  `c1.${'A'.repeat(5000)}`,
  'x'.repeat(5000),
  '',
];

/** A cursor for a list route: an edge, a shared-form cursor of any key, or plain text. */
export const cursorValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...CURSOR_EDGES) },
  { weight: 3, arbitrary: fc.tuple(num, num).map(sharedCursor) },
  { weight: 2, arbitrary: fc.array(fc.oneof(num, bigDecimal, text), { maxLength: 3 }).map(sharedCursor) },
  { weight: 1, arbitrary: fc.tuple(text, fc.oneof(fc.uuid(), text)).map(([t, id]) => orderCursor(t, id)) },
  { weight: 1, arbitrary: text },
);

/** Query values at and past the bounds of numbers: int4, 2^53, beyond uint256, negative, fractions, exponents, junk, huge. */
export const NUMBER_EDGES: string[] = [
  '0',
  '1',
  '-1',
  '1.5',
  '2147483647',
  '2147483648',
  '3000000000',
  '9007199254740991',
  '9007199254740993',
  '99999999999999999999',
  (1n << 256n).toString(),
  '1e3',
  '0x10',
  '031337',
  ' 1',
  'abc',
  '',
  '9'.repeat(5000),
];

/**
 * Bodies as Express hands them over: JSON texts made from `templates` (mostly mutated, some as
 * they are, some junk) that parse, parsed.
 */
export function parsedBodies(templates: readonly unknown[]): fc.Arbitrary<unknown> {
  return jsonText(
    fc.oneof(
      { weight: 8, arbitrary: fc.oneof(...templates.map(mutate)) },
      { weight: 2, arbitrary: fc.constantFrom(...templates) },
      { weight: 1, arbitrary: junk },
    ),
  )
    .filter((t) => t !== undefined && t.length < 100_000)
    .map((t) => {
      try {
        return { parsed: JSON.parse(t as string) as unknown };
      } catch {
        return null;
      }
    })
    .filter((x): x is { parsed: unknown } => x !== null)
    .map((x) => x.parsed);
}
