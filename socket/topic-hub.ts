import { context, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import { EventKeys, parseLiveMessage, type DeliveredEvent, type TopicKey } from '../shared/platform/event-bus';
import type { Logger } from '../shared/platform/logging';
import { onMessage, subscribeTo, unsubscribeFrom, type Redis } from '../shared/platform/redis';
import { MESSAGING, traceparentContext } from '../shared/platform/tracing';
import type { Channel } from './socket-channel';
import type { SocketMetrics } from './socket-metrics';
import { SubscriberSet } from './subscriber-set';

/** One topic's channels here, and its SUBSCRIBE (SSUBSCRIBE on a cluster). */
class TopicEntry extends SubscriberSet<Channel> {
  constructor(
    /** Resolves once Redis confirmed the SUBSCRIBE: events published after that reach us. */
    public ready: Promise<void>,
  ) {
    super();
  }
}

/** What a confirmed entry's `ready` becomes, so it holds no promise chain of its own. */
const SUBSCRIBED = Promise.resolve();

/**
 * The replica's Redis subscriptions: one per topic someone here has joined, dropped with the
 * last channel. Commands on the subscriber connection run in order, so a SUBSCRIBE sent after
 * an UNSUBSCRIBE of the same topic leaves it subscribed.
 */
export class TopicHub {
  private readonly topics = new Map<TopicKey, TopicEntry>();
  private readonly keys: EventKeys;
  private connectedOnce = false;

  constructor(
    private readonly sub: Redis,
    prefix: string,
    private readonly metrics: SocketMetrics,
    private readonly logger: Logger,
    /** Called after the subscriber reconnected: events published meanwhile were lost live. */
    private readonly onResubscribed: (channels: Channel[]) => void,
    /** The socket role's tracer, when the process traces: a live event published in a span is delivered in a child span. */
    private readonly tracer?: Tracer,
  ) {
    this.keys = new EventKeys(prefix);
    onMessage(sub, (channel, message) => this.dispatch(channel, message));
    sub.on('ready', () => {
      if (this.connectedOnce) this.onResubscribed(this.allChannels());
      this.connectedOnce = true;
    });
    // On a cluster a shard's master can fail over while the cluster client stays ready, so no
    // `ready` comes. ioredis replaces that shard's subscriber and emits `subscribersReady`; the
    // topics here are then subscribed again on their shards (a second SSUBSCRIBE of a channel is
    // a no-op, and it covers a channel ioredis did not carry over) and the channels are repaired
    // from the topic logs, as after a reconnect: whatever was published while the shard's
    // subscriber was away reaches them.
    if (sub.isCluster) sub.on('subscribersReady', () => void this.resubscribeAll());
  }

  /** SSUBSCRIBEs every topic with channels here again, then repairs those channels from the logs. */
  private async resubscribeAll(): Promise<void> {
    const keys = [...this.topics.keys()];
    if (keys.length === 0) return;
    const failed = (await Promise.allSettled(keys.map((key) => subscribeTo(this.sub, this.keys.live(key))))).filter((r) => r.status === 'rejected');
    if (failed.length > 0)
      this.logger.warn({ topics: keys.length, failed: failed.length }, 'resubscribe after a cluster topology change failed for some topics');
    this.logger.info({ topics: keys.length }, 'live topics resubscribed after a cluster topology change');
    this.onResubscribed(this.allChannels());
  }

  /** Starts routing the topic's live events to `ch`; resolves once they are sure to arrive. */
  add(ch: Channel): Promise<void> {
    let entry = this.topics.get(ch.key);
    if (!entry) {
      const ready = subscribeTo(this.sub, this.keys.live(ch.key));
      const created = (entry = new TopicEntry(ready));
      ready.then(
        () => {
          created.ready = SUBSCRIBED;
        },
        // a failed SUBSCRIBE must not leave an entry that later joins would trust
        () => {
          if (this.topics.get(ch.key) === created) this.drop(ch.key);
        },
      );
      this.topics.set(ch.key, entry);
      this.metrics.topics.inc();
    }
    entry.add(ch);
    return entry.ready;
  }

  remove(ch: Channel): void {
    const entry = this.topics.get(ch.key);
    if (!entry || !entry.delete(ch) || entry.size > 0) return;
    this.drop(ch.key);
  }

  channelsOf(key: TopicKey): Channel[] {
    return this.topics.get(key)?.values() ?? [];
  }

  get size(): number {
    return this.topics.size;
  }

  private drop(key: TopicKey): void {
    this.topics.delete(key);
    this.metrics.topics.dec();
    unsubscribeFrom(this.sub, this.keys.live(key)).catch((err: unknown) => this.logger.warn({ err, topic: key }, 'unsubscribe failed'));
  }

  private dispatch(channel: string, message: string): void {
    const key = this.keys.topicOfLive(channel);
    const entry = key && this.topics.get(key);
    if (!entry) return;
    const ev = parseLiveMessage(message);
    if (!ev) {
      this.logger.warn({ topic: key }, 'dropped an unreadable live message');
      return;
    }
    this.metrics.deliveryLag.observe(Math.max(0, Date.now() - ev.publishedAt) / 1000);
    if (this.tracer && ev.traceparent !== undefined) this.deliverTraced(this.tracer, entry, ev);
    else entry.forEach((ch) => ch.onLive(ev));
    this.metrics.fanout.observe(Math.max(0, Date.now() - ev.publishedAt) / 1000);
  }

  /** The delivery to this replica's channels as a span under the publish, in the publisher's trace. */
  private deliverTraced(tracer: Tracer, entry: TopicEntry, ev: DeliveredEvent): void {
    const span = tracer.startSpan(
      `deliver ${ev.event}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: { [MESSAGING.system]: 'redis', [MESSAGING.operation]: 'process', 'rfq.event': ev.event, 'rfq.seq': ev.seq, 'rfq.channels': entry.size },
      },
      traceparentContext(ev.traceparent),
    );
    try {
      context.with(trace.setSpan(context.active(), span), () => entry.forEach((ch) => ch.onLive(ev)));
    } finally {
      span.end();
    }
  }

  private allChannels(): Channel[] {
    const out: Channel[] = [];
    for (const entry of this.topics.values()) out.push(...entry.values());
    return out;
  }
}
