import type { ParsedTopic } from '../shared/events';
import { reflectedBy, type DeliveredEvent, type HistoryRead, type RelayAnchor } from '../shared/platform/event-bus';
import { admitJoin, runRepair, type JoinHost } from './channel-join';
import type { Ref } from './phoenix-codec';
import { Channel, type ChannelOwner } from './socket-channel';
import type { SocketRuntime } from './socket-runtime';

/** What a relay asks of the connection its stream is joined on. */
export interface RelayHost extends JoinHost {
  readonly holdLimit: number;
  /** Sends a feed event to the stream's client as the stream's event `seq`. */
  sendRelayed(stream: Channel, ev: DeliveredEvent, seq: number): void;
}

/**
 * The second half of a relayed stream (topic-table.ts, `relayed`): a channel on the feed topic
 * its anchor names, owned by the stream's channel rather than by a connection. It skips the
 * leading feed events its snapshot already reflects, then hands each later one on as the
 * stream's next seq (the snapshot being seq 1), so the client reads 1, 2, 3... on its own
 * topic while the feed is published once for every stream of the subject. The feed channel
 * orders, holds and repairs feed events as any channel does; whatever ends it ends the stream.
 */
export class FeedRelay implements ChannelOwner {
  readonly feed: Channel;
  /** Still inside the leading run of events at or below the snapshot's block (never, from a settled anchor). */
  private skipping: boolean;
  /** The stream seq of the last event handed on, or skipped as already known to the client. */
  private seq: number;
  /** The feed seq the relay reads after: the anchor, or with a settled anchor the client's place in the feed. */
  readonly from: number;

  constructor(
    private readonly rt: SocketRuntime,
    private readonly host: RelayHost,
    readonly stream: Channel,
    readonly anchor: RelayAnchor,
    /** The client already has the stream's events up to this seq (its `last_seq` on a rejoin). */
    private readonly knownUpTo: number,
  ) {
    const parsed = { ...stream.parsed, key: anchor.feed } as ParsedTopic;
    this.feed = new Channel(this, anchor.feed, parsed, stream.joinRef);
    // A settled anchor maps the stream's seq n >= 2 to the feed's `after + n - 1`: start at the client's place.
    const at = Math.max(knownUpTo, 1);
    this.skipping = !anchor.settled;
    this.seq = anchor.settled ? at : 1;
    this.from = anchor.settled ? anchor.after + at - 1 : anchor.after;
  }

  get holdLimit(): number {
    return this.host.holdLimit;
  }

  /** The stream's last seq once these feed events (read from `from`) are numbered: what a rejoin may claim at most. */
  headAfter(events: readonly DeliveredEvent[]): number {
    let i = 0;
    if (this.skipping) while (i < events.length && reflectedBy(events[i], this.anchor.block)) i++;
    return this.seq + events.length - i;
  }

  sendEvent(_feed: Channel, ev: DeliveredEvent): void {
    if (this.skipping) {
      if (reflectedBy(ev, this.anchor.block)) return;
      this.skipping = false;
    }
    const seq = ++this.seq;
    if (seq > this.knownUpTo) this.host.sendRelayed(this.stream, ev, seq);
  }

  repair(feed: Channel): void {
    runRepair(this.rt, this, feed);
  }

  end(_feed: Channel, how: 'close' | 'error', reason: string | null, code: string): void {
    this.host.end(this.stream, how, reason, code);
  }

  /** The stream ended: stop following the feed. */
  stop(): void {
    if (!this.feed.isOpen) return;
    this.feed.close();
    this.rt.hub.remove(this.feed);
  }
}

/** Why a relay cannot start; the stream is ended with it (the client mints a new stream). */
const HISTORY_LOST = "this stream's events are no longer in history: mint a new stream";

/**
 * Attaches a relay to a stream whose snapshot is out: reads its anchor, follows the feed topic
 * (live events held from the moment the subscription is confirmed) and reads the feed from the
 * anchor. Null when the stream closed meanwhile; a reason when it cannot be relayed.
 */
async function attach(
  rt: SocketRuntime,
  host: RelayHost,
  stream: Channel,
  knownUpTo: number,
): Promise<{ relay: FeedRelay; read: HistoryRead } | { refused: string } | null> {
  const anchor = await rt.anchors.get(stream.key);
  if (!stream.isOpen) return null;
  if (!anchor) return { refused: 'this stream has expired: mint a new stream' };
  const relay = new FeedRelay(rt, host, stream, anchor, knownUpTo);
  stream.relay = relay;
  relay.feed.hold();
  await rt.hub.add(relay.feed);
  if (!stream.isOpen) return null;
  const read = await rt.gate.run(() => rt.history.readSince(anchor.feed, relay.from));
  if (!stream.isOpen) return null;
  if (!read.recovered) return { refused: HISTORY_LOST };
  return { relay, read };
}

/**
 * The join of a relayed stream: its own log (the snapshot, once published) and, when the
 * snapshot is out, the relay from its anchor, all read before the reply so the reply can say
 * where the client stands. Before the snapshot is published the stream joins on its own
 * topic and the relay starts when the snapshot arrives (`relayAfterSnapshot`).
 */
export async function runRelayedJoin(rt: SocketRuntime, host: RelayHost, ch: Channel, msgRef: Ref, lastSeq: number | undefined): Promise<void> {
  const refuse = (reason: string) => {
    rt.metrics.joins.inc({ topic_kind: ch.parsed.kind, result: 'history_lost' });
    host.refuseJoin(ch, msgRef, reason);
  };
  ch.hold();
  await rt.hub.add(ch);
  if (!ch.isOpen) return;
  const own = await rt.gate.run(() => rt.history.readSince(ch.key, 0));
  if (!ch.isOpen) return;
  const after = lastSeq ?? 0;
  if (own.head > 0 && !own.recovered && after === 0) {
    // The client needs the snapshot, which was published and has left the log (older than the history's age): it will not come again.
    return refuse(HISTORY_LOST);
  }
  if (own.head === 0) {
    // Not opened yet: the snapshot is seq 1 when it comes, and the relay starts after it.
    // As any private topic: a join without last_seq is one from seq 0, which nothing has passed yet.
    admitJoin(rt, host, ch, msgRef, { seq: 0, recovered: after === 0 });
    ch.release(0, []);
    return;
  }
  const attached = await attach(rt, host, ch, after);
  if (attached === null) return;
  if ('refused' in attached) return refuse(attached.refused);
  const { relay, read } = attached;
  if (after > relay.headAfter(read.events)) return refuse(HISTORY_LOST);
  admitJoin(rt, host, ch, msgRef, { seq: after, recovered: true });
  let bytes = 0;
  for (const ev of after === 0 ? [...own.events, ...read.events] : read.events) bytes += Buffer.byteLength(ev.data);
  if (bytes > 0) {
    host.spendOnReplay(bytes);
    rt.metrics.replayedBytes.inc(bytes);
  }
  ch.release(Math.min(after, own.head), own.events);
  relay.feed.release(relay.from, read.events);
}

/** A stream joined before its snapshot was published has just sent it: start relaying the feed after it. */
export function relayAfterSnapshot(rt: SocketRuntime, host: RelayHost, ch: Channel): void {
  attach(rt, host, ch, 1)
    .then((attached) => {
      if (attached === null) return;
      if ('refused' in attached) return host.end(ch, 'close', attached.refused, 'history_lost');
      attached.relay.feed.release(attached.relay.from, attached.read.events);
    })
    .catch((err: unknown) => {
      if (!ch.isOpen) return;
      rt.logger.warn({ err }, 'relay start failed');
      host.end(ch, 'error', 'temporarily unavailable, rejoin', 'unavailable');
    });
}
