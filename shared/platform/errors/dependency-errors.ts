import { ServiceUnavailableError } from '../../../wire/src/errors/app-error';

/** The backing services whose outage a request can wait out. */
export type Dependency = 'database' | 'redis';

/** What a client is told to wait before retrying: long enough for a restart or a pool to reconnect. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

/** A request failed because Redis or Postgres could not be reached, or did not answer in time: retrying soon can succeed. */
export class DependencyUnavailableError extends ServiceUnavailableError {
  constructor(
    readonly dependency: Dependency,
    /** The driver's error, for the log only: it never reaches the response. */
    override readonly cause: unknown,
    how: 'unreachable' | 'too_slow' = 'unreachable',
  ) {
    const what = dependency === 'database' ? 'the database' : 'Redis';
    const why = how === 'too_slow' ? 'did not answer in time' : 'cannot be reached';
    super(`temporarily unavailable: ${what} ${why}, retry shortly`, `${dependency}_unavailable`, DEPENDENCY_RETRY_AFTER_SECONDS);
  }
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  driverError?: unknown;
  errors?: unknown;
}

/** ioredis rejects a command with these when the connection is down, closing or stuck (a cluster client's too). */
const REDIS_MESSAGES = [
  /^Connection is closed\.?$/,
  /^Stream isn't writeable/,
  /^Command timed out$/,
  /^Failed to refresh slots cache/,
  /^None of startup nodes is available/,
  /^Too many Cluster redirections/,
  /^Cluster isn't ready/,
];
/**
 * Replies a (re)starting or failing-over Redis sends before it can serve commands; MOVED and ASK
 * reach a caller only from a pipeline or MULTI that a failover moved half-way (single commands
 * follow them), and the next try goes to the new owner of the slot.
 */
const REDIS_REPLIES = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY|MOVED|ASK)\b/;

/**
 * SQLSTATEs of a lost or refused session: class 08 (connection exception), the server shutting
 * down or terminating the backend (57P01-57P03), and no free connection slot (53300).
 */
const PG_CODES = /^(08...|57P0[123]|53300)$/;
/** The statement was cancelled: `statement_timeout` ran out (a lock wait, an overloaded server). */
const PG_CANCELLED = '57014';
/** What node-postgres and its pool say when the socket under a client is gone or never came. */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /is not queryable$/,
  /^Cannot use a pool after calling end on the pool$/,
];
/** Socket errors a client gets when the server is down or unreachable. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function isRedisOutage(e: ErrorLike): boolean {
  if (e.name === 'MaxRetriesPerRequestError' || e.name === 'ClusterAllFailedError') return true;
  const msg = text(e.message);
  if (e.name === 'ReplyError') return REDIS_REPLIES.test(msg);
  return REDIS_MESSAGES.some((re) => re.test(msg));
}

function isPostgresOutage(e: ErrorLike): boolean {
  if (PG_CODES.test(text(e.code))) return true;
  return PG_MESSAGES.some((re) => re.test(text(e.message)));
}

/**
 * The one place that decides whether an error means "Redis or Postgres is down or too busy"
 * (and so a 503 with Retry-After) rather than a bug (a 500). It looks at the error, at the driver error
 * TypeORM wraps (QueryFailedError.driverError), and at the attempts of an AggregateError
 * (a connect to a host with several addresses). A bare socket error (ECONNREFUSED...) counts
 * as the database only at that level: the pool hands those up unwrapped, while Redis errors
 * always come as ioredis' own, and deeper causes may belong to anything (an RPC call, say).
 */
export function dependencyOutage(err: unknown): DependencyUnavailableError | null {
  if (err instanceof DependencyUnavailableError) return err;
  if (!err || typeof err !== 'object') return null;
  const e = err as ErrorLike;
  if (isRedisOutage(e)) return new DependencyUnavailableError('redis', err);
  const candidates: ErrorLike[] = [e];
  if (e.driverError && typeof e.driverError === 'object') candidates.push(e.driverError as ErrorLike);
  if (Array.isArray(e.errors)) candidates.push(...(e.errors.filter((x) => x && typeof x === 'object') as ErrorLike[]));
  for (const c of candidates) {
    if (isPostgresOutage(c) || SOCKET_CODES.has(text(c.code))) return new DependencyUnavailableError('database', err);
    if (c.code === PG_CANCELLED) return new DependencyUnavailableError('database', err, 'too_slow');
  }
  return null;
}
