import type { TopicRef } from '../../shared/events';
import { EventHistory } from '../../shared/platform/event-bus';
import type { TestEnv } from './test-env';

export interface SeenEvent {
  seq: number;
  event: string;
  payload: Record<string, unknown>;
}

/** Everything published on a topic so far, read from the socket tier's own history. */
export async function topicEvents(env: TestEnv, topic: TopicRef): Promise<SeenEvent[]> {
  const read = await new EventHistory(env.redis, env.config).readSince(topic.key, 0);
  return read.events.map((e) => ({ seq: e.seq, event: e.event, payload: JSON.parse(e.data) as Record<string, unknown> }));
}

/**
 * Polls until `check` passes and returns the value that passed. Throws when the time is up,
 * naming what it was waiting for and showing the last value read, so a wait that never ends is a
 * failure where it happened, not a confusing assertion further down.
 */
export async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 20000, what = check.toString()): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() > until) {
      const last = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
      throw new Error(`eventually: not true after ${timeoutMs} ms: ${what}; last value: ${last.slice(0, 500)}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Fails when any maker-visible payload carries the taker's identity in any form: the address
 * (any case, with or without 0x), the raw referrer, or the taker salt.
 */
export function assertNoTakerIdentity(payloads: unknown[], secrets: { taker: string; referrer?: string; salt?: string }): void {
  const needles = [secrets.taker, secrets.referrer, secrets.salt]
    .filter((s): s is string => typeof s === 'string' && !/^0x0+$/.test(s))
    .flatMap((s) => [s.toLowerCase(), s.toLowerCase().replace(/^0x/, '')]);
  for (const p of payloads) {
    const text = JSON.stringify(p).toLowerCase();
    for (const n of needles) if (text.includes(n)) throw new Error(`maker-visible payload leaks ${n}: ${text.slice(0, 300)}`);
    for (const key of ['taker_address', 'referrer', 'taker_salt', 'fill_tx_hash']) {
      if (text.includes(`"${key}"`)) throw new Error(`maker-visible payload has field ${key}: ${text.slice(0, 300)}`);
    }
  }
}
