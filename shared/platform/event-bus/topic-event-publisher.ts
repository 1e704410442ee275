import { SpanKind, type Tracer } from '@opentelemetry/api';
import type { Config } from '../config';
import type { Counter } from 'prom-client';
import type { Metrics } from '../metrics';
import { luaScript, publishCommand, RedisEpoch, type Redis } from '../redis';
import { StreamTokens } from '../stream-tokens';
import { currentTraceparent, inSpan, MESSAGING } from '../tracing';
import { EventKeys } from './event-keys';
import type { EventCatalog, TopicRef, TopicRules } from './event.types';

/**
 * One script hands out a topic's seq, appends its history entry and sends it live, so none of the
 * three happens without the others; it keeps seqs above the Redis epoch's floor and, on a cluster, publishes only on masters an epoch check has verified (shared/platform/redis/lua/event-publish-5.lua).
 */
const PUBLISH = luaScript('event-publish');

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
    const tokenEnd = token && topic.tokenEndsAt !== undefined ? String(Math.floor(topic.tokenEndsAt)) : '';
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
        const sent = (await PUBLISH.run(this.deps.redis, keys, [...args, traceparent, at, create, gate, tokenEnd])) as [number, number];
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
