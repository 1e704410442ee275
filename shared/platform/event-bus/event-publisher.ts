import { SpanKind, type Tracer } from '@opentelemetry/api';
import type { Config } from '../config';
import type { Counter } from 'prom-client';
import type { Metrics } from '../metrics';
import { LuaScript, publishCommand, RedisEpoch, type Redis } from '../redis';
import { StreamTokens } from '../stream-tokens';
import { currentTraceparent, inSpan, MESSAGING } from '../tracing';
import { EventKeys } from './event-keys';
import type { EventCatalog, TopicRef, TopicRules } from './event-types';

/**
 * One script so that a seq is never handed out without its history entry and its live message:
 * a reader that sees seq n in the counter finds entries up to n in the log, and every replica
 * subscribed when the script ran receives message n, in seq order.
 * A token-named topic is single-use: nobody can join it once its stream token lapses, so its
 * keys live no longer than the token's remaining life plus a grace (read from the token's own
 * key here, in the same step) instead of the shared topics' days.
 * A seq never goes backwards across a Redis data loss: a counter below the epoch's floor (it was
 * recreated after a flush, a restart without persistence, an eviction) starts just above it
 * (shared/platform/redis/redis-epoch.ts). On one Redis the floor is read from the epoch key in
 * the same step, and a missing epoch key refuses the publish (EPOCHLOST: the job is retried once
 * the new epoch is open), so no event of a lost epoch's counter ever reaches a client; on a
 * cluster the epoch key is in another slot and the publisher passes the floor it knows; since a
 * loss is what recreates counters, the script then refuses to create a missing counter (answers
 * seq -1, writing nothing) until the publisher has read the epoch key afresh (and, when it is
 * gone, opened the new epoch) and passes that floor with leave to create. A counter can also go
 * back without going missing, when a replica that lacked the last writes takes over its master:
 * on a cluster the publisher therefore passes the masters its last epoch check found intact, and
 * the script answers seq -2, writing nothing, on any other node (CLUSTER MYID), until a check has
 * judged the newcomer (a failover opens a new epoch, whose floor the counter then starts above).
 * KEYS: seq, log, once, stream token (token topics; else any key, unread), epoch (on one Redis
 * with an epoch; else any key, unread), all in one cluster slot.
 * ARGV: live channel (same slot), event, payload JSON, maxlen, log ttl ms, seq ttl ms, use once,
 * token grace ms ('' = shared topic), PUBLISH or SPUBLISH (sharded pub/sub on a cluster), the
 * publishing span's traceparent ('' = none; it goes in the live message only, never to a client),
 * the floor ('' = none, 'key' = the epoch key's, else a number), '1' to refuse creating a missing counter,
 * the verified masters' node ids, comma-joined ('' = no check: one Redis, or no epoch).
 */
const PUBLISH = new LuaScript(
  `
if ARGV[13] ~= '' then
  local me = redis.call('CLUSTER', 'MYID')
  if not string.find(',' .. ARGV[13] .. ',', ',' .. me .. ',', 1, true) then return {-2, 0} end
end
local floor = 0
if ARGV[11] == 'key' then
  local f = redis.call('HGET', KEYS[5], 'floor')
  if not f then return redis.error_reply('EPOCHLOST the Redis epoch key is missing (its data was lost): publishing waits for the new epoch') end
  floor = tonumber(f)
elseif ARGV[11] ~= '' then
  floor = tonumber(ARGV[11])
end
if ARGV[7] == '1' then
  local prior = redis.call('GET', KEYS[3])
  if prior then return {tonumber(prior), 1} end
end
if ARGV[12] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0} end
local logTtl = tonumber(ARGV[5])
local seqTtl = tonumber(ARGV[6])
if ARGV[8] ~= '' then
  local left = redis.call('PTTL', KEYS[4])
  -- -1: a token without expiry (never minted so); -2: gone, only the grace is left
  if left ~= -1 then
    if left < 0 then left = 0 end
    local life = left + tonumber(ARGV[8])
    if life < seqTtl then seqTtl = life end
    if life < logTtl then logTtl = life end
  end
end
local seq = redis.call('INCR', KEYS[1])
if seq <= floor then
  seq = floor + 1
  redis.call('SET', KEYS[1], string.format('%d', seq))
end
-- the counter can only fall behind the log if someone deleted it: never reuse a seq
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #last > 0 then
  local lastSeq = tonumber(string.match(last[1][1], '^(%d+)'))
  if lastSeq >= seq then
    seq = lastSeq + 1
    redis.call('SET', KEYS[1], string.format('%d', seq))
  end
end
local now = redis.call('TIME')
local ms = string.format('%d', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
local s = string.format('%d', seq)
local data
if ARGV[3] == '{}' then data = '{"seq":' .. s .. '}' else data = '{"seq":' .. s .. ',' .. string.sub(ARGV[3], 2) end
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[4], s .. '-0', 'e', ARGV[2], 'd', data, 't', ms)
redis.call('PEXPIRE', KEYS[2], string.format('%d', logTtl))
redis.call('PEXPIRE', KEYS[1], string.format('%d', seqTtl))
if ARGV[7] == '1' then redis.call('SET', KEYS[3], s, 'PX', string.format('%d', logTtl)) end
local traced = ''
if ARGV[10] ~= '' then traced = ARGV[10] .. '\\t' end
redis.call(ARGV[9], ARGV[1], s .. '\\t' .. ARGV[2] .. '\\t' .. ms .. '\\t' .. traced .. data)
return {seq, 0}
`,
  5,
);

/** Largest payload a topic carries: a client's frame limit is not ours to exceed. */
export const MAX_EVENT_PAYLOAD_BYTES = 256 * 1024;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9:_.-]{1,128}$/;

export interface PublishOptions {
  /**
   * Same key on the same topic within the history window = the same event: a retried job
   * publishes nothing twice and gets the first seq back.
   */
  idempotencyKey?: string;
}

export interface PublishResult {
  seq: number;
  /** True when the idempotency key had already been published; nothing was sent. */
  duplicate: boolean;
}

export type EventPublisherConfig = Pick<
  Config,
  'REDIS_PREFIX' | 'SOCKET_HISTORY_MAX_EVENTS' | 'SOCKET_HISTORY_MAX_AGE_SECONDS' | 'SOCKET_SEQ_TTL_SECONDS' | 'SOCKET_TOKEN_TOPIC_GRACE_SECONDS'
>;

export interface TopicEventPublisherDeps {
  redis: Redis;
  config: EventPublisherConfig;
  metrics?: Metrics;
  /** The topic table's answers: which events a kind carries, which topics a stream token names. */
  rules: TopicRules;
  /** The publishing role's tracer: each publish is a span, and the live message carries it to the socket tier. */
  tracer?: Tracer;
  /** The Redis epoch whose floor seqs keep above; absent = the one watching `redis` (RedisEpoch.of), if any. */
  epoch?: RedisEpoch;
}

/**
 * Sends events to the topics of catalog `C`: workers and the indexer publish, socket replicas
 * deliver. Each topic's events get seq 1, 2, 3...; the recent ones stay in a Redis Stream for
 * replay, and every replica gets them live over Redis pub/sub. Knows no topic itself: what it
 * must know about one is asked through `TopicRules`, so any topic table can use it.
 */
export class TopicEventPublisher<C extends EventCatalog> {
  private readonly keys: EventKeys;
  private readonly tokens: StreamTokens;
  private readonly logTtlMs: number;
  private readonly seqTtlMs: number;
  /** Made with the publisher, so /metrics names it before the first event (a dashboard then reads 0, not no data). */
  private readonly published: Counter<string> | undefined;

  constructor(private readonly deps: TopicEventPublisherDeps) {
    this.keys = new EventKeys(deps.config.REDIS_PREFIX);
    this.tokens = new StreamTokens(deps.redis, deps.config.REDIS_PREFIX);
    this.logTtlMs = deps.config.SOCKET_HISTORY_MAX_AGE_SECONDS * 1000;
    this.seqTtlMs = Math.max(deps.config.SOCKET_SEQ_TTL_SECONDS * 1000, this.logTtlMs);
    this.published = deps.metrics?.counter('events_published_total', 'Events published to socket topics', ['topic_kind', 'duplicate']);
  }

  async publish<K extends keyof C & string, E extends keyof C[K] & string>(
    topic: TopicRef<K>,
    event: E,
    payload: C[K][E],
    opts: PublishOptions = {},
  ): Promise<PublishResult> {
    if (!this.deps.rules.carries(topic.kind, event)) throw new Error(`event ${event} does not belong on a ${topic.kind} topic`);
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new Error('an event payload is a JSON object');
    if (Object.prototype.hasOwnProperty.call(payload, 'seq')) throw new Error('an event payload must not carry seq: the socket tier assigns it');
    const json = JSON.stringify(payload);
    if (Buffer.byteLength(json) > MAX_EVENT_PAYLOAD_BYTES) throw new Error(`event payload larger than ${MAX_EVENT_PAYLOAD_BYTES} bytes`);
    const once = opts.idempotencyKey;
    if (once !== undefined && !IDEMPOTENCY_KEY.test(once)) throw new Error('idempotencyKey: 1-128 of A-Z a-z 0-9 : _ . -');

    const token = this.deps.rules.streamTokenOf(topic);
    const seqKey = this.keys.seq(topic.key);
    const epoch = this.deps.epoch ?? RedisEpoch.of(this.deps.redis);
    const floor = epoch?.current ? (this.deps.redis.isCluster ? String(epoch.current.floor) : 'key') : '';
    const keys = [
      seqKey,
      this.keys.log(topic.key),
      this.keys.once(topic.key, once ?? '-'),
      token ? this.tokens.key(token.kind, token.hash) : seqKey,
      floor === 'key' && epoch ? epoch.key : seqKey,
    ];
    const args = [
      this.keys.live(topic.key),
      event,
      json,
      this.deps.config.SOCKET_HISTORY_MAX_EVENTS,
      this.logTtlMs,
      this.seqTtlMs,
      once === undefined ? '0' : '1',
      token ? this.deps.config.SOCKET_TOKEN_TOPIC_GRACE_SECONDS * 1000 : '',
      publishCommand(this.deps.redis),
    ];
    // On a cluster the floor passed is the one this process last read: a counter to be created is
    // the first sign of a loss it may not have noticed yet, so creating one waits for a fresh read;
    // and a master no check has seen yet (a promoted replica) waits for one.
    const guarded = epoch !== undefined && floor !== '' && floor !== 'key';
    const send = async (traceparent: string) => {
      let at = floor;
      let create = guarded ? '1' : '0';
      for (let attempt = 0; ; attempt++) {
        const gate = guarded ? epoch.verifiedMasters : '';
        const sent = (await PUBLISH.run(this.deps.redis, keys, [...args, traceparent, at, create, gate])) as [number, number];
        if (sent[0] >= 0 || !guarded) return sent;
        if (attempt === 2) throw new Error('publish refused: its Redis master has not been checked for lost data yet (a failover in progress); retried later');
        if (sent[0] === -1) {
          at = String(await epoch.freshFloor(seqKey));
          create = '0';
        } else {
          await epoch.check();
          at = String(epoch.current!.floor);
        }
      }
    };
    const [seq, dup] = this.deps.tracer ? await traced(this.deps.tracer, topic.kind, event, send) : await send('');
    this.published?.inc({ topic_kind: topic.kind, duplicate: dup === 1 ? 'true' : 'false' });
    return { seq, duplicate: dup === 1 };
  }
}

/**
 * A publish in a span of the publishing role, whose traceparent rides in the live message to the
 * socket tier's delivery span. Named by the topic's kind, never its key: a key may name a wallet.
 */
function traced(tracer: Tracer, kind: string, event: string, send: (traceparent: string) => Promise<[number, number]>): Promise<[number, number]> {
  const attributes = { [MESSAGING.system]: 'redis', [MESSAGING.operation]: 'send', [MESSAGING.destination]: kind, 'rfq.event': event };
  return inSpan(tracer, `publish ${kind}`, { kind: SpanKind.PRODUCER, attributes }, async (span) => {
    const sent = await send(currentTraceparent() ?? '');
    span?.setAttributes({ 'rfq.seq': sent[0], 'rfq.duplicate': sent[1] === 1 });
    return sent;
  });
}
