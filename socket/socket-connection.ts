import { WebSocket, type RawData } from 'ws';
import { isRelayed, parseTopic, type JoinCredentials } from '../shared/events';
import { withSeq, type DeliveredEvent } from '../shared/platform/event-bus';
import { joinParamsSchema, runJoin, runRepair } from './channel-join';
import { decodeBinary, decodeText, encodeMessage, encodeReply, type InboundMessage, type Ref, type Vsn } from './phoenix-codec';
import { ChannelSlots } from './channel-slots';
import { relayAfterSnapshot, runRelayedJoin, type RelayHost } from './feed-relay';
import { takeJoin } from './join-bucket';
import { ReplayBudget } from './replay-budget';
import { Channel, type ChannelOwner } from './socket-channel';
import type { SocketRuntime } from './socket-runtime';

type FrameType = 'event' | 'reply' | 'control';

/**
 * Encoded frames of one live event, per vsn, then by topic as the client wrote it and join_ref.
 * A live event reaches every channel of its topic as one object, and subscribers mostly share
 * a join_ref (each phoenix.js socket numbers its joins alike), so a fan-out encodes each
 * distinct frame once, and looks it up without building a key string per subscriber.
 */
const frameCaches = { 1: new WeakMap<DeliveredEvent, Map<string, Map<Ref, Buffer>>>(), 2: new WeakMap<DeliveredEvent, Map<string, Map<Ref, Buffer>>>() };
/** Every frame of ours is JSON text, including the ones held as Buffers. */
const AS_TEXT = { binary: false } as const;

/**
 * One client connection: decodes its frames, answers heartbeats, joins and leaves, and sends
 * what its channels deliver. As in Phoenix, a message for a topic this connection has not
 * joined is answered `unmatched topic`, and one carrying an old join_ref is dropped.
 * A malformed frame is dropped on its own; too many of them close the connection (1008).
 */
export class SocketConnection implements ChannelOwner, RelayHost {
  readonly channels = new ChannelSlots<Channel>();
  lastSeen = Date.now();
  private badFrames = 0;
  /** The join bucket, packed (join-bucket.ts): when it is full again; a new connection's is full now. */
  private joinsFullAt: number;
  /** Joins refused since the last one let through: a client that ignores the refusals is closed. */
  private joinsRefusedInARow = 0;
  /** Made on the first replay: most connections never replay. */
  private replays: ReplayBudget | null = null;

  constructor(
    readonly ws: WebSocket,
    readonly vsn: Vsn,
    readonly credentials: JoinCredentials,
    /** The client address its connection slot is counted under (connection-limiter.ts). */
    readonly address: string,
    private readonly rt: SocketRuntime,
  ) {
    this.joinsFullAt = this.lastSeen;
  }

  get holdLimit(): number {
    return this.rt.settings.joinBufferEvents;
  }

  /** A frame from ws. A bug met on one connection must not take the replica down with it. */
  receive(data: RawData, isBinary: boolean): void {
    try {
      this.onFrame(data, isBinary);
    } catch (err) {
      this.rt.logger.error({ err }, 'socket frame handler failed');
      this.disconnect(1011, 'internal error', 'internal_error');
    }
  }

  /** ws reports frames over maxPayload, invalid UTF-8 and protocol errors here, after closing with the matching code. */
  socketError(err: Error & { code?: string }): void {
    this.rt.metrics.disconnects.inc({ reason: err.code ?? 'ws_error' });
    this.rt.logger.debug({ err: err.message, code: err.code }, 'socket connection error');
  }

  onFrame(data: RawData, isBinary: boolean): void {
    this.lastSeen = Date.now();
    this.rt.metrics.messagesIn.inc();
    const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    let decoded;
    if (isBinary) decoded = this.vsn === 2 ? decodeBinary(buf) : { ok: false as const, reason: 'binary_frame_on_vsn_1' };
    else decoded = decodeText(this.vsn, buf.toString('utf8'));
    if (!decoded.ok) return this.bad(decoded.reason);
    const m = decoded.msg;
    if (m.binary) {
      // Our channels only push; no client event takes a binary payload.
      this.reply(m.joinRef, m.ref, m.topic, 'error', { reason: 'binary payloads are not supported' });
      return;
    }
    this.route(m);
  }

  private route(m: InboundMessage): void {
    if (m.topic === 'phoenix' && m.event === 'heartbeat') return this.reply(null, m.ref, 'phoenix', 'ok', {});
    const ch = this.channels.get(m.topic);
    if (m.event === 'phx_join') return this.join(m, ch);
    if (ch && m.joinRef !== null && m.joinRef !== ch.joinRef) return; // stale: meant for an earlier join
    if (m.event === 'phx_leave') {
      this.reply(m.joinRef, m.ref, m.topic, 'ok', {});
      if (ch) this.end(ch, 'close', null, 'left');
      return;
    }
    if (!ch) return this.reply(null, m.ref, m.topic, 'error', { reason: 'unmatched topic' });
    this.reply(m.joinRef, m.ref, m.topic, 'error', { reason: `unsupported event ${m.event}: this topic only pushes` });
  }

  private join(m: InboundMessage, existing: Channel | undefined): void {
    const parsed = parseTopic(m.topic);
    // Before anything else (a refused join changes nothing): every join may cost a credential lookup.
    const full = takeJoin(this.joinsFullAt, Date.now(), { burst: this.rt.settings.joinBurst, perMinute: this.rt.settings.joinRatePerMinute });
    if (full === null) {
      this.rt.metrics.joins.inc({ topic_kind: parsed?.kind ?? 'unknown', result: 'rate_limited' });
      if (++this.joinsRefusedInARow > this.rt.settings.maxJoinRefusals) return this.disconnect(1008, 'too many joins', 'join_flood');
      return this.reply(m.joinRef, m.ref, m.topic, 'error', { reason: 'too many joins: slow down' });
    }
    this.joinsFullAt = full;
    this.joinsRefusedInARow = 0;
    // Phoenix closes the existing channel on a duplicate join and joins anew.
    if (existing) this.end(existing, 'close', null, 'duplicate_join');
    if (!parsed) {
      this.rt.metrics.joins.inc({ topic_kind: 'unknown', result: 'unmatched' });
      return this.reply(null, m.ref, m.topic, 'error', { reason: 'unmatched topic' });
    }
    if (this.channels.size >= this.rt.settings.maxChannels) {
      this.rt.metrics.joins.inc({ topic_kind: parsed.kind, result: 'too_many' });
      return this.reply(m.joinRef, m.ref, m.topic, 'error', { reason: 'too many channels joined' });
    }
    const params = joinParamsSchema.safeParse(m.payload ?? {});
    if (!params.success) {
      this.rt.metrics.joins.inc({ topic_kind: parsed.kind, result: 'invalid' });
      const first = params.error.issues[0];
      const reason = `invalid join payload: ${first.path.length ? `${first.path.join('.')}: ` : ''}${first.message}`;
      return this.reply(m.joinRef, m.ref, m.topic, 'error', { reason });
    }
    const ch = new Channel(this, m.topic, parsed, m.joinRef ?? m.ref);
    this.channels.set(ch);
    void runJoin(this.rt, this, ch, m.ref, params.data);
  }

  acceptJoin(ch: Channel, msgRef: Ref, response: { seq: number; recovered?: boolean }): void {
    ch.joined = true;
    this.rt.metrics.channels.inc({ topic_kind: ch.parsed.kind });
    this.reply(ch.joinRef, msgRef, ch.topic, 'ok', response);
  }

  refuseJoin(ch: Channel, msgRef: Ref, reason: string): void {
    this.drop(ch);
    this.reply(ch.joinRef, msgRef, ch.topic, 'error', { reason });
  }

  replayBudgetWait(): number | null {
    const now = Date.now();
    return !this.replays || this.replays.allows(now) ? null : this.replays.secondsLeft(now);
  }

  spendOnReplay(bytes: number): void {
    const now = Date.now();
    this.replays ??= new ReplayBudget(this.rt.settings.replayBudgetBytes, this.rt.settings.replayBudgetWindowMs, now);
    this.replays.spend(bytes, now);
  }

  sendEvent(ch: Channel, ev: DeliveredEvent): void {
    const cache = frameCaches[this.vsn];
    let byTopic = cache.get(ev);
    if (!byTopic) cache.set(ev, (byTopic = new Map<string, Map<Ref, Buffer>>()));
    let byRef = byTopic.get(ch.topic);
    if (!byRef) byTopic.set(ch.topic, (byRef = new Map<Ref, Buffer>()));
    let frame = byRef.get(ch.joinRef);
    if (!frame) byRef.set(ch.joinRef, (frame = Buffer.from(encodeMessage(this.vsn, ch.joinRef, null, ch.topic, ev.event, ev.data))));
    this.send(frame, 'event');
    // A relayed stream joined before its snapshot was out: the feed's later events follow it.
    if (ev.seq === 1 && ch.relay === null && isRelayed(ch.parsed.kind)) relayAfterSnapshot(this.rt, this, ch);
  }

  /** A feed event relayed to a stream, renumbered: each stream has its own seq and its own topic name, so its frame is its own. */
  sendRelayed(ch: Channel, ev: DeliveredEvent, seq: number): void {
    this.send(encodeMessage(this.vsn, ch.joinRef, null, ch.topic, ev.event, withSeq(ev.data, seq)), 'event');
  }

  joinRelayed(ch: Channel, msgRef: Ref, lastSeq: number | undefined): Promise<void> {
    return runRelayedJoin(this.rt, this, ch, msgRef, lastSeq);
  }

  repair(ch: Channel): void {
    runRepair(this.rt, this, ch);
  }

  /**
   * Ends a channel from the server side, with the frame Phoenix sends when a channel process
   * stops: phx_close (normal end; the client does not rejoin) or phx_error (the client rejoins).
   */
  end(ch: Channel, how: 'close' | 'error', reason: string | null, code: string): void {
    if (!ch.isOpen) return;
    this.drop(ch);
    this.rt.metrics.channelEnds.inc({ reason: code });
    const payload = JSON.stringify(reason === null ? {} : { reason });
    this.send(encodeMessage(this.vsn, ch.joinRef, ch.joinRef, ch.topic, how === 'close' ? 'phx_close' : 'phx_error', payload), 'control');
  }

  /** The connection is gone: forget its channels without telling it. */
  closed(): void {
    for (const ch of this.channels.values()) this.drop(ch);
  }

  /** Closes the connection with a WebSocket close code and a reason the client can read. */
  disconnect(closeCode: number, reason: string, code: string): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.rt.metrics.disconnects.inc({ reason: code });
    this.ws.close(closeCode, reason);
  }

  private drop(ch: Channel): void {
    if (!ch.isOpen) return;
    ch.close();
    ch.relay?.stop();
    this.channels.delete(ch);
    this.rt.hub.remove(ch);
    this.rt.index.remove(ch);
    if (ch.joined) this.rt.metrics.channels.dec({ topic_kind: ch.parsed.kind });
  }

  private reply(joinRef: Ref, ref: Ref, topic: string, status: 'ok' | 'error', response: object): void {
    this.send(encodeReply(this.vsn, joinRef, ref, topic, status, response), 'reply');
  }

  private send(frame: string | Buffer, type: FrameType): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(frame, AS_TEXT);
    this.rt.metrics.out[type].inc();
    if (this.ws.bufferedAmount > this.rt.settings.maxBufferedBytes) this.disconnect(1008, 'slow consumer: too much unsent data', 'slow_consumer');
  }

  private bad(reason: string): void {
    this.rt.metrics.badFrames.inc({ reason });
    if (++this.badFrames > this.rt.settings.maxBadFrames) this.disconnect(1008, 'too many malformed messages', 'bad_frames');
  }
}
