import IORedis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis';
import { redisEndpoint, type RedisEndpoint, type RedisNode } from '../config';
import { withoutPassword } from '../logging/redact-url';

/**
 * A connection to the service's Redis: one server, or an ioredis Cluster. Callers do not need
 * to know which: every key a multi-key command or script touches carries a shared hash tag, and
 * pub/sub goes through `publishTo` / `subscribeTo` below.
 */
export type Redis = IORedis | Cluster;

/** Longest a command may wait for its reply, queued offline or sent to a Redis that stopped answering. */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;
/** Longest pause between two reconnection attempts while Redis is down. */
const RECONNECT_MAX_DELAY_MS = 500;

/** What names the Redis to connect to: the configuration, what it resolves to, or a plain URL (tests, benches). */
export type RedisTarget = string | RedisEndpoint | { REDIS_URL: string; REDIS_CLUSTER_NODES: readonly RedisNode[] };

function endpointOf(target: RedisTarget): RedisEndpoint {
  if (typeof target === 'string') return redisEndpoint({ REDIS_URL: target, REDIS_CLUSTER_NODES: [] });
  if ('kind' in target) return target;
  return redisEndpoint(target);
}

/**
 * The Redis a configuration names, as a log line may show it: one server's URL, or a cluster's
 * seed nodes (`redis+cluster://host:port,host:port`), with any password replaced by `***`.
 */
export function describeRedis(target: RedisTarget): string {
  const endpoint = endpointOf(target);
  if (endpoint.kind === 'single') return withoutPassword(endpoint.url, 'redis');
  const auth = endpoint.username || endpoint.password ? `${endpoint.username ?? ''}${endpoint.password ? ':***' : ''}@` : '';
  const nodes = endpoint.nodes.map((n) => `${n.host.includes(':') ? `[${n.host}]` : n.host}:${n.port}`).join(',');
  return `${endpoint.tls ? 'rediss' : 'redis'}+cluster://${auth}${nodes}`;
}

/** True when the configuration names a Redis Cluster. */
export function isClusterTarget(target: RedisTarget): boolean {
  return endpointOf(target).kind === 'cluster';
}

/** What a connection is for: plain commands, a pub/sub subscriber, or a BullMQ worker's blocking connection. */
export type RedisUse = 'commands' | 'subscriber' | 'bull';

/**
 * The one place that opens Redis connections. Commands fail fast while Redis is down, so a
 * request gets a 503 (shared/platform/errors maps these failures) instead of hanging; the client
 * keeps reconnecting in the background. A command issued while the connection is down waits in
 * the offline queue for at most one reconnection attempt; `commandTimeout` bounds the rest,
 * including a Redis that accepts connections but no longer answers (paused, partitioned), where
 * the socket never closes and nothing else would ever reject the command.
 *
 * On a cluster the same options apply to every node's connection; a subscriber also gets one
 * connection per master for sharded pub/sub (SSUBSCRIBE is answered only by the channel's shard).
 */
export function createRedis(target: RedisTarget, extra: RedisOptions = {}, use: RedisUse = 'commands'): Redis {
  return recordingErrors(openRedis(endpointOf(target), extra, use));
}

/** The last connection error each client emitted (refused, reset, timed out), for start checks and logs. */
const lastErrors = new WeakMap<Redis, Error>();

/**
 * Every client gets an `error` listener the moment it exists: ioredis writes each error event
 * that has no listener to stderr as raw text (`[ioredis] Unhandled error event`), once per
 * reconnection attempt for as long as Redis is away. The client keeps reconnecting either way;
 * the error is kept for `lastConnectionError` and for whoever reports outages (`reportOutages`).
 */
function recordingErrors(redis: Redis): Redis {
  redis.on('error', (err: Error) => lastErrors.set(redis, err));
  return redis;
}

/** What the client's last failed connection attempt said, if it has failed since it was created. */
export function lastConnectionError(redis: Redis): Error | undefined {
  return lastErrors.get(redis);
}

/**
 * One log line when a client loses Redis (its first error after being ready, or before it ever
 * was) and one when it is ready again, instead of a line per reconnection attempt.
 */
export function reportOutages(redis: Redis, report: { lost(err: Error): void; back(): void }): void {
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    report.lost(err);
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    report.back();
  });
}

function openRedis(endpoint: RedisEndpoint, extra: RedisOptions, use: RedisUse): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    enableOfflineQueue: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // A queued command fails at the next failed reconnection attempt, so the cap on the delay
    // between attempts is also about how long a request waits for its 503 during an outage.
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), RECONNECT_MAX_DELAY_MS),
    ...(use === 'bull' ? { maxRetriesPerRequest: null, commandTimeout: undefined } : {}),
    ...extra,
  };
  if (endpoint.kind === 'single') return new IORedis(endpoint.url, options);
  const { enableAutoPipelining: _batchingAsked, enableOfflineQueue, lazyConnect, retryStrategy, ...nodeOptions } = options;
  const cluster: ClusterOptions = {
    // No auto-pipelining on a cluster: a batch that meets a failover half-way comes back with
    // some commands MOVED and some answered, and ioredis re-sends a pipeline only when every
    // command moved to the same node, so the rest reach the caller as raw MOVED errors (seen as
    // 500s in the scaled stack's Redis-master fault). Sent one by one, each command follows its
    // MOVED to the new master after `retryDelayOnFailover`.
    enableAutoPipelining: false,
    enableOfflineQueue,
    lazyConnect,
    clusterRetryStrategy: retryStrategy ? (times) => retryStrategy(times) : undefined,
    // A failover moves slots: commands wait for the new map instead of failing on the first MOVED.
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: 2000,
    shardedSubscribers: use === 'subscriber',
    redisOptions: {
      ...nodeOptions,
      username: endpoint.username,
      password: endpoint.password,
      ...(endpoint.tls ? { tls: {} } : {}),
    },
  };
  return new Cluster(
    endpoint.nodes.map((n) => ({ host: n.host, port: n.port })),
    cluster,
  );
}

/**
 * Connection BullMQ workers need: blocking commands (which wait server-side on purpose) must
 * be neither timed out nor failed per request; the worker waits for Redis to come back.
 */
export function createBullConnection(target: RedisTarget): Redis {
  return createRedis(target, {}, 'bull');
}

/** A connection for SUBSCRIBE (one server) or SSUBSCRIBE (a cluster); see `subscribeTo`. */
export function createSubscriber(target: RedisTarget): Redis {
  return createRedis(target, {}, 'subscriber');
}

/**
 * Pub/sub that works on both: on one server plain PUBLISH/SUBSCRIBE, exactly as before (and
 * on any Redis version); on a cluster sharded pub/sub (Redis 7), so a message travels only to
 * the shard that owns its channel's slot instead of to every node over the cluster bus.
 */
export function shardedPubSub(redis: Redis): boolean {
  return redis.isCluster;
}

/** The publish command a Lua script must call for this connection (`PUBLISH` or `SPUBLISH`). */
export function publishCommand(redis: Redis): 'PUBLISH' | 'SPUBLISH' {
  return shardedPubSub(redis) ? 'SPUBLISH' : 'PUBLISH';
}

export async function publishTo(redis: Redis, channel: string, message: string): Promise<number> {
  return Number(shardedPubSub(redis) ? await redis.spublish(channel, message) : await redis.publish(channel, message));
}

/** Subscribes to each channel (one at a time on a cluster: SSUBSCRIBE takes channels of one slot). */
export async function subscribeTo(sub: Redis, ...channels: string[]): Promise<void> {
  if (!shardedPubSub(sub)) {
    await sub.subscribe(...channels);
    return;
  }
  for (const ch of channels) await sub.ssubscribe(ch);
}

export async function unsubscribeFrom(sub: Redis, ...channels: string[]): Promise<void> {
  if (!shardedPubSub(sub)) {
    await sub.unsubscribe(...channels);
    return;
  }
  for (const ch of channels) await sub.sunsubscribe(ch);
}

/** Calls `fn` for every message of the channels `subscribeTo` joined. */
export function onMessage(sub: Redis, fn: (channel: string, message: string) => void): void {
  sub.on(shardedPubSub(sub) ? 'smessage' : 'message', fn);
}

/**
 * The servers that hold the keys: the one server, or each master of a cluster. What a SCAN over
 * every key, or a probe that every shard answers, must visit.
 */
export function primaryNodes(redis: Redis): IORedis[] {
  return redis instanceof Cluster ? redis.nodes('master') : [redis];
}

/** Builds keys under the deployment prefix. BullMQ forbids ioredis keyPrefix, so keys are prefixed by hand. */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  key(...parts: (string | number)[]): string {
    return this.prefix + parts.join(':');
  }
}

/**
 * Wraps a key part in braces: a cluster then hashes only that part, so keys that share it share
 * a slot (what a MULTI or a script over several keys needs). Harmless on one server.
 */
export function hashTag(part: string | number): string {
  return `{${part}}`;
}

/**
 * The prefix BullMQ puts before one queue's keys (queue, workers and events alike):
 * `<REDIS_PREFIX>bull:{<queue>}`, so every key of a queue lands in one cluster slot, as BullMQ's
 * scripts require, while different queues spread over the shards.
 */
export function bullPrefix(redisPrefix: string, queue: string): string {
  if (/[{}]/.test(queue)) throw new Error(`queue name ${queue} must not contain braces`);
  return `${redisPrefix}bull:${hashTag(queue)}`;
}

/** How long `closeRedis` waits for QUIT's answer before it drops the connection. */
export const QUIT_WAIT_MS = 2_000;
/** How long it then waits for the client to end: ioredis destroys a dropped socket its peer has not closed after 2 s (`disconnectTimeout`). */
const END_WAIT_MS = 5_000;

/** `promise`'s value, or `otherwise` once `ms` have passed without one. */
function within<T>(promise: Promise<T>, ms: number, otherwise: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(otherwise), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Closes a connection: QUIT, so commands already sent get their answers first; a connection
 * that cannot answer (Redis gone, or connected but never ready, its commands queued behind a
 * ready check that never comes back) is dropped after `QUIT_WAIT_MS` instead of holding a
 * shutdown open. Settles once the client has ended (its socket closed, no reconnect to come).
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  const ended = new Promise<boolean>((resolve) => redis.once('end', () => resolve(true)));
  const answered = await within(
    redis.quit().then(
      () => true,
      () => false,
    ),
    QUIT_WAIT_MS,
    false,
  );
  if (!answered) redis.disconnect();
  await within(ended, END_WAIT_MS, false);
}
