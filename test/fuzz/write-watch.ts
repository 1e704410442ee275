import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { closeRedis, createRedis } from '../../shared/platform/redis';

/**
 * A cheap detector of writes, so that the HTTP fuzz takes its full snapshot (a row count of every
 * table, every Redis key of the test with its TTL) only after a request that may have written,
 * instead of after every request. It hears of every write to the fuzz's own database and keys,
 * and nothing of the rest of the machine's:
 *
 * - Postgres: an AFTER INSERT/UPDATE/DELETE row trigger and an AFTER TRUNCATE statement trigger on
 *   every table the snapshot counts, each a `pg_notify` on one channel, heard by a connection that
 *   LISTENs to it. Notifications are database-local and sent at commit, so only this database's
 *   committed writes are heard (a rolled-back one changed nothing).
 * - Redis: client-side caching's broadcast mode (`CLIENT TRACKING on BCAST PREFIX <prefix>`):
 *   Redis sends the name of every key under the test's prefix that any client changes (a write,
 *   a delete, a key that expires) to a subscriber of `__redis__:invalidate`. No server-wide
 *   setting moves: the tracking lives and ends with the watch's own connection.
 *
 * `drain()` knows it has heard everything committed before it was called because it waits for a
 * marker of its own sent down each path after the call: a NOTIFY on the channel (the queue
 * delivers in commit order) and a SET of a marker key under the prefix (Redis sends the
 * invalidations in the order it ran the writes). A path that went deaf (a lost connection, the
 * tracking's redirect gone) never delivers its marker, and `drain()` fails instead of answering
 * "nothing".
 */
export interface WriteWatch {
  /**
   * What was written since the last drain (or since the watch opened): `table <name> <op>` and
   * `redis <key>` entries, empty when nothing was. Keys `ignoreKey` accepts are left out.
   */
  drain(): Promise<string[]>;
  close(): Promise<void>;
}

export interface WriteWatchOptions {
  /** The fuzz's database: the triggers are installed through it. */
  db: DataSource;
  databaseUrl: string;
  /** The tables the snapshot counts: every one must carry the triggers, or the watch refuses to open. */
  tables: readonly string[];
  redisUrl: string;
  /** The test's Redis key prefix: the keys the snapshot reads. */
  prefix: string;
  /** Keys whose writes are not writes for the check (rate-limit counters count refused attempts by design). */
  ignoreKey(key: string): boolean;
}

const CHANNEL = 'fuzz_write_watch';
const TRIGGER = 'fuzz_write_watch';
/** A hang guard on one marker's round trip, not a speed expectation. */
const MARKER_MS = 30_000;

/** The key `drain()` sets to mark its place in Redis's stream of invalidations; set before any snapshot, so no snapshot sees it come or go. */
export const markerKey = (prefix: string) => `${prefix}fuzz:write-watch-marker`;

export async function openWriteWatch(o: WriteWatchOptions): Promise<WriteWatch> {
  await installTriggers(o.db, o.tables);
  const heard: string[] = [];
  let broken: Error | undefined;
  const fail = (what: string) => (err?: Error) => (broken ??= new Error(`the write watch lost ${what}${err ? `: ${err.message}` : ''}`));

  // Postgres: one connection that LISTENs, and sends the markers itself.
  const listener = new Client({ connectionString: o.databaseUrl, application_name: 'fuzz-write-watch' });
  listener.on('error', fail('its Postgres listener'));
  listener.on('end', fail('its Postgres listener'));
  let pgWaiting: { mark: string; done: () => void } | undefined;
  listener.on('notification', (n) => {
    if (n.channel !== CHANNEL) return;
    if (pgWaiting && n.payload === pgWaiting.mark) pgWaiting.done();
    else heard.push(`table ${n.payload ?? '?'}`);
  });
  await listener.connect();
  await listener.query(`LISTEN ${CHANNEL}`);

  // Redis: a subscriber that gets the invalidations, and a connection whose tracking redirects to
  // it (RESP2 sends them only to a subscriber). Neither reconnects: a new connection would be deaf.
  const noReconnect = { retryStrategy: () => null, commandTimeout: MARKER_MS };
  const subscriber = createRedis(o.redisUrl, noReconnect);
  const tracker = createRedis(o.redisUrl, noReconnect);
  let subscriberId: number;
  try {
    subscriberId = Number(await subscriber.client('ID'));
    await subscriber.subscribe('__redis__:invalidate');
    await tracker.call('CLIENT', 'TRACKING', 'on', 'REDIRECT', String(subscriberId), 'BCAST', 'PREFIX', o.prefix);
  } catch (err) {
    await Promise.all([listener.end(), closeRedis(subscriber), closeRedis(tracker)]);
    throw err;
  }
  for (const [name, r] of [
    ['its Redis subscriber', subscriber],
    ['its Redis tracking connection', tracker],
  ] as const) {
    r.on('close', () => fail(name)());
    r.on('error', fail(name));
  }
  const marker = markerKey(o.prefix);
  let redisWaiting: (() => void) | undefined;
  subscriber.on('message', (channel: string, message: string | null) => {
    if (channel !== '__redis__:invalidate') return;
    // A null message is a flush of the whole database: everything changed.
    if (message === null || message === undefined) return void heard.push('redis (the database was flushed)');
    // ioredis joins the array of keys with commas; a key's own comma only splits it into more
    // parts, the first of which keeps the key's start: ignored only if that start is.
    for (const key of String(message).split(',')) {
      if (key === marker) {
        redisWaiting?.();
      } else if (!o.ignoreKey(key)) heard.push(`redis ${key}`);
    }
  });
  // The marker key exists from now on: a drain overwrites it, never creates it.
  await tracker.set(marker, '0');

  /** Waits for a marker sent down one path: `arm` gets the callback its listener calls when the marker comes back. */
  const roundTrip = (path: string, arm: (done: () => void) => void, send: () => Promise<unknown>) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(broken ?? new Error(`the write watch's ${path} marker did not come back within ${MARKER_MS} ms`)), MARKER_MS);
      arm(() => {
        clearTimeout(timer);
        resolve();
      });
      send().catch((err: Error) => {
        clearTimeout(timer);
        reject(broken ?? err);
      });
    });

  let marks = 0;
  return {
    async drain() {
      if (broken) throw broken;
      const mark = `marker ${++marks}`;
      await Promise.all([
        roundTrip(
          'Postgres',
          (done) => (pgWaiting = { mark, done }),
          () => listener.query(`SELECT pg_notify($1, $2)`, [CHANNEL, mark]),
        ),
        // One drain runs at a time: the marker key's invalidation while it waits is its own.
        roundTrip(
          'Redis',
          (done) => (redisWaiting = done),
          () => tracker.set(marker, String(marks)),
        ),
      ]);
      pgWaiting = undefined;
      redisWaiting = undefined;
      if (broken) throw broken;
      return heard.splice(0);
    },
    async close() {
      // Mark the watch closed before the connections end, so their end is not taken for a loss.
      broken ??= new Error('the write watch is closed');
      await Promise.allSettled([listener.end(), closeRedis(subscriber), closeRedis(tracker)]);
    },
  };
}

/** The triggers on every table, and a check that every table the snapshot counts carries them. */
async function installTriggers(db: DataSource, tables: readonly string[]): Promise<void> {
  await db.query(
    `CREATE FUNCTION ${TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       PERFORM pg_notify('${CHANNEL}', TG_TABLE_NAME || ' ' || TG_OP);
       RETURN NULL;
     END $$`,
  );
  // A partition gets its parent's row trigger by itself (and refuses a second of the same name).
  const roots: { relname: string }[] = await db.query(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relname = ANY($1) AND NOT c.relispartition`,
    [tables],
  );
  for (const { relname } of roots) {
    await db.query(`CREATE TRIGGER ${TRIGGER} AFTER INSERT OR UPDATE OR DELETE ON "${relname}" FOR EACH ROW EXECUTE FUNCTION ${TRIGGER}()`);
    await db.query(`CREATE TRIGGER ${TRIGGER}_truncate AFTER TRUNCATE ON "${relname}" FOR EACH STATEMENT EXECUTE FUNCTION ${TRIGGER}()`);
  }
  const covered: { relname: string }[] = await db.query(
    `SELECT DISTINCT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_trigger t ON t.tgrelid = c.oid
     WHERE n.nspname = 'public' AND c.relname = ANY($1) AND t.tgname = $2 AND t.tgenabled = 'O'`,
    [tables, TRIGGER],
  );
  const bare = tables.filter((t) => !covered.some((c) => c.relname === t));
  if (bare.length > 0) throw new Error(`the write watch has no trigger on ${bare.join(', ')}`);
}
