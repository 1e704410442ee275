import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Metrics } from '../shared/platform/metrics';

/**
 * What an operator watches on a socket replica. Gauges move with inc/dec rather than being
 * computed at scrape time, so several servers sharing one metrics registry (tests) add up correctly.
 */
export class SocketMetrics {
  readonly connections: Gauge<string>;
  readonly connectionsOpened: Counter<string>;
  readonly disconnects: Counter<string>;
  readonly channels: Gauge<string>;
  readonly joins: Counter<string>;
  readonly channelEnds: Counter<string>;
  readonly messagesIn: Counter<string>;
  readonly messagesOut: Counter<string>;
  /** Children per frame type, resolved once: the fan-out loop counts every frame it sends. */
  readonly out: Record<'event' | 'reply' | 'control', { inc(n?: number): void }>;
  readonly badFrames: Counter<string>;
  readonly replays: Counter<string>;
  readonly replayedEvents: Counter<string>;
  readonly replayedBytes: Counter<string>;
  readonly upgradesRefused: Counter<string>;
  readonly credentialLookups: Counter<string>;
  readonly keyRechecks: Counter<string>;
  readonly topics: Gauge<string>;
  readonly deliveryLag: Histogram<string>;
  readonly fanout: Histogram<string>;

  constructor(m: Metrics) {
    this.connections = m.gauge('socket_connections', 'Open WebSocket connections');
    this.connectionsOpened = m.counter('socket_connections_opened_total', 'WebSocket connections accepted');
    this.disconnects = m.counter('socket_disconnects_total', 'Connections closed by the server, by reason', ['reason']);
    this.channels = m.gauge('socket_channels', 'Joined channels, by topic kind', ['topic_kind']);
    this.joins = m.counter('socket_joins_total', 'Join attempts, by topic kind and outcome', ['topic_kind', 'result']);
    this.channelEnds = m.counter('socket_channel_ends_total', 'Channels ended by the server, by reason', ['reason']);
    this.messagesIn = m.counter('socket_messages_in_total', 'Frames received from clients');
    this.messagesOut = m.counter('socket_messages_out_total', 'Frames sent to clients, by type', ['type']);
    this.out = { event: this.messagesOut.labels('event'), reply: this.messagesOut.labels('reply'), control: this.messagesOut.labels('control') };
    this.badFrames = m.counter('socket_bad_frames_total', 'Frames dropped as malformed, by reason', ['reason']);
    this.replays = m.counter('socket_replays_total', 'History reads for joins with last_seq and for gap repairs, by outcome', ['result']);
    this.replayedEvents = m.counter('socket_replayed_events_total', 'Events delivered from history rather than live');
    this.replayedBytes = m.counter('socket_replayed_bytes_total', 'Bytes of history sent by join replays (counted against SOCKET_REPLAY_BUDGET_BYTES)');
    this.upgradesRefused = m.counter('socket_upgrades_refused_total', 'WebSocket upgrades refused by a connection cap: replica_full (503) or per_ip (429)', [
      'reason',
    ]);
    this.credentialLookups = m.counter('socket_credential_lookups_total', 'Join credential lookups, by kind and cache result', ['kind', 'result']);
    this.keyRechecks = m.counter(
      'socket_key_rechecks_total',
      'Periodic checks of key-authenticated channels against the database: ok, failed; revoked_keys counts keys found removed',
      ['result'],
    );
    this.topics = m.gauge('socket_subscribed_topics', 'Topics this replica is subscribed to on Redis');
    this.deliveryLag = m.histogram(
      'socket_delivery_lag_seconds',
      'From publish (Redis clock) to hand-off to the connections, live events only',
      [],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    );
    this.fanout = m.histogram(
      'socket_fanout_seconds',
      'From publish (Redis clock) until the last channel of the topic on this replica was handed its frame',
      [],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    );
  }
}
