import pino from 'pino';

/**
 * Properties of driver errors that carry the values a statement or command was sent with:
 * TypeORM's QueryFailedError `parameters`, ioredis' `command.args`, pg's `values`. They hold
 * taker addresses, salts and stream tokens, so a log line keeps only how many there were.
 */
const VALUE_LISTS = new Set(['parameters', 'args', 'values', 'bindings']);
/** Properties holding SQL text, whose literals are values too. */
const SQL_TEXT = new Set(['query', 'where', 'internalQuery', 'sql']);
const MAX_SQL_CHARS = 2000;
const MAX_DEPTH = 6;

/** SQL with its string and numeric literals replaced by `?`; placeholders ($1) and identifiers stay. */
export function maskSqlLiterals(sql: string): string {
  const masked = sql.replace(/'(?:[^']|'')*'/g, "'?'").replace(/(?<![\w$.])-?\d+(?:\.\d+)?(?!\w)/g, '?');
  return masked.length > MAX_SQL_CHARS ? `${masked.slice(0, MAX_SQL_CHARS)}...` : masked;
}

/** Postgres' `detail`: "Key (col)=(value) already exists.", "Failing row contains (v1, v2)." */
function maskDetail(detail: string): string {
  return detail.replace(/=\((?:[^()]|\([^()]*\))*\)/g, '=(?)').replace(/contains \(.*\)/g, 'contains (?)');
}

/** A database error's message may end with the offending value: `invalid input syntax for type uuid: "..."`. */
function maskMessage(message: string): string {
  return message.replace(/: "(?:[^"\\]|\\.)*"$/, ': "?"');
}

/** Idempotent, as a line's error may pass both the log formatter and a key's serializer. */
function redactedList(v: unknown): string {
  if (Array.isArray(v)) return `[${v.length} redacted]`;
  return typeof v === 'string' && REDACTED.test(v) ? v : '[redacted]';
}
const REDACTED = /^\[(\d+ )?redacted\]$/;

function scrub(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  const isDbError = typeof (value as { code?: unknown }).code === 'string' && 'severity' in value;
  for (const [k, v] of Object.entries(value)) {
    if (VALUE_LISTS.has(k)) out[k] = redactedList(v);
    else if (SQL_TEXT.has(k) && typeof v === 'string') out[k] = maskSqlLiterals(v);
    else if (k === 'detail' && typeof v === 'string') out[k] = maskDetail(v);
    else if (k === 'message' && typeof v === 'string' && isDbError) out[k] = maskMessage(v);
    else out[k] = scrub(v, depth + 1);
  }
  return out;
}

/**
 * The log form of an error: pino's standard shape (type, message, stack, own properties,
 * causes) with every value a statement or command carried masked. Every role logs through
 * createLogger, so every error any of them logs goes through here.
 */
export function serializeError(err: unknown): unknown {
  if (err === null || typeof err !== 'object') return err;
  const base = err instanceof Error ? pino.stdSerializers.err(err) : err;
  return scrub(base, 0);
}
