import type { Redis } from '../redis';
import { RedisKeys } from '../redis';
import { taggedTopic } from './event-keys';
import type { DeliveredEvent, TopicKey } from './event.types';

/**
 * Where a relayed topic joins the feed it follows. A relayed topic is a private, token-named
 * topic whose own log holds one event, its snapshot (seq 1); everything after it comes from a
 * shared feed topic that is published to once per event however many tokens follow it. The
 * socket tier sends the client the snapshot, then the feed's events after seq `after`, skipping
 * the leading ones whose `block_number` is at most `block` (the snapshot already reflects them;
 * docs/SOCKETS.md, "Relayed topics"), and numbers them on from the snapshot's seq, so the client
 * still sees seq 1, 2, 3... on its own topic.
 */
export interface RelayAnchor {
  /** The feed topic the relayed topic follows. */
  feed: TopicKey;
  /** The feed's last seq when the snapshot was read: later feed events are candidates. */
  after: number;
  /** The block the snapshot reflects. */
  block: number;
  /**
   * The leading run is behind it: `after` has been moved past every feed event the snapshot
   * reflects, so the stream's seq n (n >= 2) is the feed's seq `after + n - 1` and a rejoin reads
   * only what followed its last_seq. Settled by the publisher that fills the feed, in order,
   * once the first later event or a rollback passes (explore-streams.ts, `drain`); until then
   * the relay skips the run itself, by the same rule.
   */
  settled: boolean;
}

/**
 * The anchors, one key per relayed topic (`ev:relay:<t>`, in the topic's own cluster slot),
 * written before the topic's snapshot is published and living as long as the topic's log.
 */
export class RelayAnchors {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new RedisKeys(prefix);
  }

  key(topic: TopicKey): string {
    return this.keys.key('ev', 'relay', taggedTopic(topic));
  }

  async set(topic: TopicKey, anchor: RelayAnchor, ttlMs: number): Promise<void> {
    await this.redis.set(this.key(topic), encode(anchor), 'PX', Math.max(1, Math.ceil(ttlMs)));
  }

  /** Rewrites a settled anchor, keeping its life; an anchor already gone stays gone. */
  async settle(topic: TopicKey, anchor: Omit<RelayAnchor, 'settled'>): Promise<void> {
    await this.redis.set(this.key(topic), encode({ ...anchor, settled: true }), 'KEEPTTL', 'XX');
  }

  /** The anchor; null when none was written (the snapshot is not published yet) or it expired. */
  async get(topic: TopicKey): Promise<RelayAnchor | null> {
    const raw = await this.redis.get(this.key(topic));
    if (raw === null) return null;
    const parsed: unknown = JSON.parse(raw);
    if (!Array.isArray(parsed) || parsed.length !== 4) return null;
    const [feed, after, block, settled] = parsed as unknown[];
    if (typeof feed !== 'string' || !Number.isSafeInteger(after) || !Number.isSafeInteger(block)) return null;
    return { feed: feed as TopicKey, after: after as number, block: block as number, settled: settled === 1 };
  }
}

const encode = (a: RelayAnchor) => JSON.stringify([a.feed, a.after, a.block, a.settled ? 1 : 0]);

/**
 * True when a feed event is one the snapshot already reflects: an event of a block at or below
 * the snapshot's. Only the leading run of a relay is filtered so: a rollback notice or a fresh
 * snapshot on the feed (no top-level `block_number`) ends it, as does the first later block.
 */
export function reflectedBy(ev: DeliveredEvent, block: number): boolean {
  const n = blockNumberOf(ev);
  return n !== null && n <= block;
}

/** Parsed once per event object: a live event reaches every relay of a replica as one object. */
const blockCache = new WeakMap<DeliveredEvent, number | null>();

/** The top-level `block_number` of an event's data, or null. */
function blockNumberOf(ev: DeliveredEvent): number | null {
  const cached = blockCache.get(ev);
  if (cached !== undefined) return cached;
  let n: number | null;
  try {
    const v = (JSON.parse(ev.data) as { block_number?: unknown }).block_number;
    n = typeof v === 'number' && Number.isSafeInteger(v) ? v : null;
  } catch {
    n = null;
  }
  blockCache.set(ev, n);
  return n;
}

/** The event's data with its `seq` replaced: a relayed event is renumbered for the topic it is relayed to. */
export function withSeq(data: string, seq: number): string {
  // data is always `{"seq":<digits>` then `,...}` or `}` (the publish script writes it so)
  let end = 7;
  while (end < data.length && data.charCodeAt(end) >= 48 && data.charCodeAt(end) <= 57) end++;
  return `{"seq":${seq}${data.slice(end)}`;
}
