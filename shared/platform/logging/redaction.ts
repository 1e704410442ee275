/** What a secret's value becomes in a log line. */
export const CENSOR = '[redacted]';

/** Keys whose value is a secret at the top of a line or of a child logger's bindings. */
const TOP = new Set(['secret', 'token', 'signature', 'password', 'SERVICE_SIGNER_KEY']);
/** Keys whose value is a secret one level down, under any top-level key (`config.SERVICE_SIGNER_KEY`). */
const NESTED = ['secret', 'token', 'stream_token', 'SERVICE_SIGNER_KEY'];
/** Request headers that carry credentials, under `req.headers` (a logged request) and `headers`. */
const REQUEST_HEADERS = ['authorization', 'x-quote-stream-token', 'x-challenge-response'];
const HEADERS = ['authorization'];

/**
 * The paths the logger censors, as pino's `redact` option spells them: what `redactSecrets`
 * implements, kept here so a test can check the two agree on every line.
 */
export const REDACTED_PATHS: readonly string[] = [
  ...REQUEST_HEADERS.map((h) => (h.includes('-') ? `req.headers["${h}"]` : `req.headers.${h}`)),
  ...HEADERS.map((h) => `headers.${h}`),
  ...TOP,
  ...NESTED.map((k) => `*.${k}`),
];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A shallow copy of `v` that keeps its prototype (a class's `toJSON` still applies). */
function copyOf<T extends object>(v: T): T {
  return Object.assign(Object.create(Object.getPrototypeOf(v) as object | null) as T, v);
}

/** `v` with each of `keys` it owns censored; `v` itself when it owns none. */
function censored(v: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const k of keys) if (Object.prototype.hasOwnProperty.call(v, k)) (out ??= copyOf(v))[k] = CENSOR;
  return out ?? v;
}

/** A top-level object value with its nested secrets (and, for `req` and `headers`, credential headers) censored. */
function redactNested(key: string, v: Record<string, unknown>): Record<string, unknown> {
  let out = censored(v, NESTED);
  const headers = key === 'req' ? REQUEST_HEADERS : key === 'headers' ? HEADERS : null;
  if (headers === null) return out;
  if (key === 'headers') return censored(out, headers);
  const inner = out.headers;
  if (!isObject(inner)) return out;
  const clean = censored(inner, headers);
  if (clean !== inner) {
    if (out === v) out = copyOf(v);
    out.headers = clean;
  }
  return out;
}

/**
 * A log line's fields (or a child logger's bindings) with every secret in `REDACTED_PATHS`
 * censored. The caller's objects are never changed: what holds a secret is copied, the rest is
 * shared, and a line with nothing to censor is returned as it came. One pass over the line's own
 * keys, and one over each object value's: pino's `redact` ran a compiled redactor per key of
 * every line (its wildcard paths), each re-reading its paths, which was a measurable share of a
 * request's allocations.
 */
export function redactSecrets(obj: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    const v = obj[key];
    if (v === undefined) continue;
    const clean = TOP.has(key) ? CENSOR : isObject(v) ? redactNested(key, v) : v;
    if (clean !== v) (out ??= { ...obj })[key] = clean;
  }
  return out ?? obj;
}
