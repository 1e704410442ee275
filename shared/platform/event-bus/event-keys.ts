import { RedisKeys } from '../redis';
import type { DeliveredEvent, TopicKey } from './event-types';

/**
 * Where a topic lives in Redis, under the deployment prefix:
 * - `ev:seq:<topic>`  the last seq handed out (INCR);
 * - `ev:log:<topic>`  a Stream of the recent events, entry id `<seq>-0`, fields e (event), d (data), t (ms);
 * - `ev:live:<topic>` the pub/sub channel every socket replica subscribes to while someone joined;
 * - `ev:once:<topic>:<key>` the seq an idempotency key was published as.
 * Publisher and reader share this module so the layout is written down once.
 */
export class EventKeys {
  private readonly keys: RedisKeys;
  readonly livePrefix: string;

  constructor(prefix: string) {
    this.keys = new RedisKeys(prefix);
    this.livePrefix = this.keys.key('ev', 'live', '');
  }

  seq(topic: TopicKey): string {
    return this.keys.key('ev', 'seq', topic);
  }

  log(topic: TopicKey): string {
    return this.keys.key('ev', 'log', topic);
  }

  live(topic: TopicKey): string {
    return this.livePrefix + topic;
  }

  once(topic: TopicKey, idempotencyKey: string): string {
    return this.keys.key('ev', 'once', topic, idempotencyKey);
  }

  /** The topic a live channel name belongs to; null for channels that are not ours. */
  topicOfLive(channel: string): TopicKey | null {
    return channel.startsWith(this.livePrefix) ? (channel.slice(this.livePrefix.length) as TopicKey) : null;
  }
}

/**
 * Live messages are `<seq>\t<event>\t<ms>\t<data>`: seq, event and time readable without
 * parsing the JSON, so a replica routes an event to a thousand channels without touching it.
 */
export function parseLiveMessage(message: string): DeliveredEvent | null {
  const a = message.indexOf('\t');
  const b = a < 0 ? -1 : message.indexOf('\t', a + 1);
  const c = b < 0 ? -1 : message.indexOf('\t', b + 1);
  if (c < 0) return null;
  const seq = Number(message.slice(0, a));
  const publishedAt = Number(message.slice(b + 1, c));
  if (!Number.isSafeInteger(seq) || seq < 1 || !Number.isFinite(publishedAt)) return null;
  return { seq, event: message.slice(a + 1, b), publishedAt, data: message.slice(c + 1) };
}
