import { RedisKeys } from '../redis';
import type { DeliveredEvent, TopicKey } from './event.types';

/** A topic named by a stream token ends with `:#` and the token's sha-256 (`rfq_stream:#<hash>`). */
const TOKEN_NAMED = /^(.*:#)([0-9a-f]{64})$/;
const TOKEN_TAGGED = /^(.*:#)\{([0-9a-f]{64})\}$/;

/**
 * A topic as its keys spell it: the part a Redis Cluster hashes in braces. A topic named by a
 * stream token hashes on the token's hash (`rfq_stream:#{<hash>}`), as the token's own key does
 * (StreamTokens.key), so the publish script reads the token in the topic's slot; any other topic
 * hashes on its whole name (`{quotes:31337:requests}`).
 */
export function taggedTopic(topic: TopicKey): string {
  const m = TOKEN_NAMED.exec(topic);
  return m ? `${m[1]}{${m[2]}}` : `{${topic}}`;
}

function untaggedTopic(tagged: string): string | null {
  const m = TOKEN_TAGGED.exec(tagged);
  if (m) return m[1] + m[2];
  return tagged.length > 2 && tagged.startsWith('{') && tagged.endsWith('}') ? tagged.slice(1, -1) : null;
}

/**
 * Where a topic lives in Redis, under the deployment prefix (`<t>` = `taggedTopic(topic)`, so all
 * of a topic's keys and its channel share one cluster slot):
 * - `ev:seq:<t>`  the last seq handed out (INCR);
 * - `ev:log:<t>`  a Stream of the recent events, entry id `<seq>-0`, fields e (event), d (data), t (ms);
 * - `ev:live:<t>` the pub/sub channel every socket replica subscribes to while someone joined
 *   (sharded pub/sub on a cluster);
 * - `ev:once:<t>:<key>` the seq an idempotency key was published as.
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
    return this.keys.key('ev', 'seq', taggedTopic(topic));
  }

  log(topic: TopicKey): string {
    return this.keys.key('ev', 'log', taggedTopic(topic));
  }

  live(topic: TopicKey): string {
    return this.livePrefix + taggedTopic(topic);
  }

  once(topic: TopicKey, idempotencyKey: string): string {
    return this.keys.key('ev', 'once', taggedTopic(topic), idempotencyKey);
  }

  /** The topic a live channel name belongs to; null for channels that are not ours. */
  topicOfLive(channel: string): TopicKey | null {
    if (!channel.startsWith(this.livePrefix)) return null;
    return untaggedTopic(channel.slice(this.livePrefix.length)) as TopicKey | null;
  }
}

const OPEN_BRACE = '{'.charCodeAt(0);

/**
 * Live messages are `<seq>\t<event>\t<ms>\t<data>`: seq, event and time readable without
 * parsing the JSON, so a replica routes an event to a thousand channels without touching it.
 * One published inside a span has the span's traceparent before the data
 * (`<seq>\t<event>\t<ms>\t<traceparent>\t<data>`); the data, a JSON object, always starts with `{`.
 */
export function parseLiveMessage(message: string): DeliveredEvent | null {
  const a = message.indexOf('\t');
  const b = a < 0 ? -1 : message.indexOf('\t', a + 1);
  const c = b < 0 ? -1 : message.indexOf('\t', b + 1);
  if (c < 0) return null;
  const seq = Number(message.slice(0, a));
  const publishedAt = Number(message.slice(b + 1, c));
  if (!Number.isSafeInteger(seq) || seq < 1 || !Number.isFinite(publishedAt)) return null;
  const event = message.slice(a + 1, b);
  if (message.charCodeAt(c + 1) === OPEN_BRACE) return { seq, event, publishedAt, data: message.slice(c + 1) };
  const d = message.indexOf('\t', c + 1);
  if (d < 0) return null;
  return { seq, event, publishedAt, data: message.slice(d + 1), traceparent: message.slice(c + 1, d) };
}
