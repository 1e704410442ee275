import { z } from 'zod';
import { authorizeJoin, isRelayed, replaysFromStart, type JoinCredentials } from '../shared/events';
import type { HistoryRead } from '../shared/platform/event-bus';
import type { Ref } from './phoenix-codec';
import type { Channel } from './socket-channel';
import type { SocketRuntime } from './socket-runtime';

/** The join payload. Unknown keys are ignored, as Phoenix channels do. */
export const joinParamsSchema = z.object({
  last_seq: z.number({ message: 'last_seq must be a non-negative integer' }).int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  token: z.string().min(1).max(4096).optional(),
  api_key: z.string().min(1).max(1024).optional(),
});
export type JoinParams = z.output<typeof joinParamsSchema>;

/** The connection side of a join: how it answers and ends channels. */
export interface JoinHost {
  readonly credentials: JoinCredentials;
  /** Null when this connection may replay history now; else the seconds until its replay budget renews. */
  replayBudgetWait(): number | null;
  /** Counts bytes a replay sent against the connection's budget. */
  spendOnReplay(bytes: number): void;
  /** Answers the phx_join (message ref `msgRef`) ok. */
  acceptJoin(ch: Channel, msgRef: Ref, response: { seq: number; recovered?: boolean }): void;
  refuseJoin(ch: Channel, msgRef: Ref, reason: string): void;
  end(ch: Channel, how: 'close' | 'error', reason: string | null, code: string): void;
  /** Joins a relayed topic (feed-relay.ts) once it is authorised and within the replay budget. */
  joinRelayed(ch: Channel, msgRef: Ref, lastSeq: number | undefined): Promise<void>;
}

/**
 * authorise -> subscribe -> read history -> reply -> replay -> live. Live events that arrive
 * from the moment the subscription is confirmed are held by the channel, so nothing published
 * between the history read and the reply is lost, and what both delivered is sent once.
 * Every await can see the channel closed (leave, duplicate join, disconnect): it then stops.
 */
export async function runJoin(rt: SocketRuntime, host: JoinHost, ch: Channel, msgRef: Ref, params: JoinParams): Promise<void> {
  const kind = ch.parsed.kind;
  try {
    const offered = params.token !== undefined || params.api_key !== undefined;
    const creds = offered ? { token: params.token, api_key: params.api_key } : host.credentials;
    const grant = await authorizeJoin(ch.parsed, creds, rt.lookups);
    if (!ch.isOpen) return;
    if (!grant.ok) {
      rt.metrics.joins.inc({ topic_kind: kind, result: 'refused' });
      host.refuseJoin(ch, msgRef, grant.reason);
      return;
    }
    ch.expiresAt = grant.expiresAt;
    ch.keyId = grant.keyId;

    // a private topic starts from its first event (the table's replayFromStart), a shared one live
    const fromStart = replaysFromStart(kind);
    const after = params.last_seq ?? (fromStart ? 0 : undefined);
    const wait = after === undefined ? null : host.replayBudgetWait();
    if (wait !== null) {
      rt.metrics.joins.inc({ topic_kind: kind, result: 'replay_budget' });
      const reason = `replay budget of this connection used up: retry in ${wait} s`;
      // a shared topic can be joined live instead; a token topic always starts from its history
      host.refuseJoin(ch, msgRef, fromStart ? reason : `${reason}, or join without last_seq to start live`);
      return;
    }
    if (isRelayed(kind)) return await host.joinRelayed(ch, msgRef, params.last_seq);
    ch.hold();
    await rt.hub.add(ch);
    if (!ch.isOpen) return;
    const read: HistoryRead | { head: number; recovered?: undefined; events: [] } =
      after === undefined ? { head: await rt.history.head(ch.key), events: [] } : await rt.gate.run(() => rt.history.readSince(ch.key, after));
    if (!ch.isOpen) return;

    // Not recovered after a Redis data loss: the client resumes at the new epoch's floor and gets its events.
    const position = after !== undefined && read.recovered ? after : ((read.recovered === false ? read.resumeAfter : undefined) ?? read.head);
    admitJoin(rt, host, ch, msgRef, read.recovered === undefined ? { seq: position } : { seq: position, recovered: read.recovered });
    if (read.recovered !== undefined) rt.metrics.replays.inc({ result: read.recovered ? 'recovered' : 'not_recovered' });
    if (read.events.length > 0) {
      let bytes = 0;
      for (const ev of read.events) bytes += Buffer.byteLength(ev.data);
      host.spendOnReplay(bytes);
      rt.metrics.replayedEvents.inc(read.events.length);
      rt.metrics.replayedBytes.inc(bytes);
    }
    ch.release(position, read.events);
  } catch (err) {
    if (!ch.isOpen) return;
    rt.logger.warn({ err, topic_kind: kind }, 'join failed');
    rt.metrics.joins.inc({ topic_kind: kind, result: 'failed' });
    host.refuseJoin(ch, msgRef, 'temporarily unavailable, retry');
  }
}

/** Answers a join ok, and from then on the channel counts: its credential can end it, and the gauges have it. */
export function admitJoin(rt: SocketRuntime, host: JoinHost, ch: Channel, msgRef: Ref, response: { seq: number; recovered?: boolean }): void {
  host.acceptJoin(ch, msgRef, response);
  rt.index.add(ch);
  rt.metrics.joins.inc({ topic_kind: ch.parsed.kind, result: 'ok' });
}

/**
 * Live delivery skipped a seq (a message lost while the subscriber reconnected): fetch the
 * missing events; when history no longer has them, end the channel with phx_error so the
 * client rejoins with its last_seq and learns `recovered: false`.
 */
export function runRepair(rt: SocketRuntime, host: Pick<JoinHost, 'end'>, ch: Channel): void {
  const from = ch.lastSeq;
  rt.gate
    .run(() => rt.history.readSince(ch.key, from))
    .then((read) => {
      if (!ch.isOpen) return;
      rt.metrics.replays.inc({ result: read.recovered ? 'repaired' : 'repair_failed' });
      if (!read.recovered) {
        host.end(ch, 'error', 'events were lost and are no longer in history: rejoin', 'history_lost');
        return;
      }
      if (read.events.length > 0) rt.metrics.replayedEvents.inc(read.events.length);
      ch.release(from, read.events);
    })
    .catch((err: unknown) => {
      if (!ch.isOpen) return;
      rt.logger.warn({ err }, 'gap repair failed');
      host.end(ch, 'error', 'temporarily unavailable, rejoin', 'unavailable');
    });
}
