import type { ParsedTopic } from '../shared/events';
import type { DeliveredEvent, TopicKey } from '../shared/platform/event-bus';
import type { Ref } from './phoenix-codec';

/** What a channel needs from its connection. */
export interface ChannelOwner {
  /** How many live events a channel may hold while it catches up (the same for all of a replica's). */
  readonly holdLimit: number;
  sendEvent(ch: Channel, ev: DeliveredEvent): void;
  /** Live delivery skipped a seq: fetch the missing events from history. */
  repair(ch: Channel): void;
  /** Ends the channel: `close` for good (phx_close), `error` to make the client rejoin (phx_error). */
  end(ch: Channel, how: 'close' | 'error', reason: string | null, code: string): void;
}

/**
 * One joined (or joining) topic on one connection, and the ordering rule of the socket tier:
 * the client receives seq lastSeq+1, lastSeq+2, ... and nothing twice. While a history read
 * is running (join with last_seq, or a gap repair) live events are held, then released after
 * the replayed ones, skipping what the replay already covered.
 *
 *   joining --auth ok--> replaying --history read--> live --gap--> replaying --read--> live
 *      any state --leave / end / disconnect--> closed
 *
 * Kept small: up to 100,000 of these live in one process, so what is the same for every
 * channel (the hold limit) is asked of the owner, and the join's message ref is not kept
 * past the join (runJoin has it).
 */
export class Channel {
  state: 'joining' | 'replaying' | 'live' | 'closed' = 'joining';
  /** The last seq the client has (or, before the first event, the seq it starts after). */
  lastSeq = 0;
  /** Unix ms at which the credential that opened the channel expires; 0 = never. */
  expiresAt = 0;
  /** The API key behind the credential, so revoking the key ends the channel. */
  keyId: string | null = null;
  /** The join was answered ok (it counts in the joined-channels gauge). */
  joined = false;
  /** A relayed topic's relay from its feed once the snapshot is out (feed-relay.ts); null otherwise. */
  relay: { stop(): void } | null = null;
  private held: DeliveredEvent[] | null = null;
  /**
   * The topic was subscribed again (the subscriber reconnected, or a cluster shard's subscriber
   * was replaced after a failover) while a history read of this channel was in flight: what was
   * published after that read and before the new subscription reached neither, so the channel
   * reads once more when it is released.
   */
  private readAgain = false;

  constructor(
    readonly owner: ChannelOwner,
    /** The topic exactly as the client wrote it: every frame echoes it. */
    readonly topic: string,
    readonly parsed: ParsedTopic,
    readonly joinRef: Ref,
  ) {}

  get key(): TopicKey {
    return this.parsed.key;
  }

  get isOpen(): boolean {
    return this.state !== 'closed';
  }

  /** From now until `release`, live events are held rather than sent. */
  hold(): void {
    this.state = 'replaying';
    this.held ??= [];
  }

  /** A live event from Redis. */
  onLive(ev: DeliveredEvent): void {
    if (this.held) {
      if (this.held.length >= this.owner.holdLimit) {
        this.owner.end(this, 'error', 'too many events while catching up', 'hold_overflow');
        return;
      }
      this.held.push(ev);
      return;
    }
    if (this.state === 'live') this.deliver(ev);
  }

  /**
   * The live subscription was restored: events published while it was away reached no one. A
   * live channel holds and repairs from history now; one with a read in flight (joining,
   * replaying) repairs right after that read is released, since the read may have run before
   * the subscription was back. A repair that finds nothing costs one read.
   */
  resubscribed(): void {
    if (this.state === 'closed') return;
    if (this.state !== 'live') {
      this.readAgain = true;
      return;
    }
    this.hold();
    this.owner.repair(this);
  }

  /**
   * The history read is done: the client is at `position`, `replay` holds the events that
   * follow it. Sends them, then the held live events that come after them.
   */
  release(position: number, replay: readonly DeliveredEvent[]): void {
    if (this.state === 'closed') return;
    this.lastSeq = position;
    const queue = this.held ? [...replay, ...this.held] : replay;
    this.held = null;
    this.state = 'live';
    for (let i = 0; i < queue.length; i++) {
      if (!this.deliver(queue[i])) {
        // a new gap: deliver() is holding again; keep the rest behind the event that opened it
        this.held!.push(...queue.slice(i + 1));
        return;
      }
    }
    if (this.readAgain) {
      this.readAgain = false;
      this.hold();
      this.owner.repair(this);
    }
  }

  close(): void {
    this.state = 'closed';
    this.held = null;
  }

  /** False when `ev` opened a gap (a repair has started and holds it). */
  private deliver(ev: DeliveredEvent): boolean {
    if (ev.seq <= this.lastSeq) return true;
    if (ev.seq !== this.lastSeq + 1) {
      // this repair reads now, after any resubscription: no second read is owed
      this.readAgain = false;
      this.state = 'replaying';
      this.held = [ev];
      this.owner.repair(this);
      return false;
    }
    this.lastSeq = ev.seq;
    this.owner.sendEvent(this, ev);
    return true;
  }
}
