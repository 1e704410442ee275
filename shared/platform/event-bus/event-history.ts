import type { Config } from '../config';
import { isEpochStart, luaScript, type Redis } from '../redis';
import { EventKeys } from './event-keys';
import type { DeliveredEvent, TopicKey } from './event.types';

/** The head seq and the entries after a seq, read in one step (shared/platform/redis/lua/event-read-since-2.lua). */
const READ_SINCE = luaScript('event-read-since');

export interface HistoryRead {
  /** The topic's last seq at the moment of the read (0 when it never had an event). */
  head: number;
  /** True when `events` are exactly after+1 .. head (none missing, none expired). */
  recovered: boolean;
  /**
   * The events to replay, in order: after+1 .. head when recovered; when not, empty, or (the
   * topic's counter was recreated after a Redis data loss, `resumeAfter` set) the new epoch's
   * events, resumeAfter+1 .. head.
   */
  events: DeliveredEvent[];
  /**
   * Set when not recovered because the topic started again in a new Redis epoch after `after`:
   * the client resumes after this seq (the epoch's floor) and gets every event since (`events`).
   */
  resumeAfter?: number;
}

export type EventHistoryConfig = Pick<Config, 'REDIS_PREFIX' | 'SOCKET_HISTORY_MAX_EVENTS' | 'SOCKET_HISTORY_MAX_AGE_SECONDS'>;

type RawEntry = [string, string[]];

/** Reads what the publisher keeps: the socket tier's side of the event log. */
export class EventHistory {
  private readonly keys: EventKeys;

  constructor(
    private readonly redis: Redis,
    private readonly config: EventHistoryConfig,
  ) {
    this.keys = new EventKeys(config.REDIS_PREFIX);
  }

  /** The last seq handed out on a topic. */
  async head(topic: TopicKey): Promise<number> {
    return Number((await this.redis.get(this.keys.seq(topic))) ?? 0);
  }

  /**
   * What came after seq `after`. Not recovered when the log no longer reaches back that far
   * (trimmed by count or older than the history age) or when `after` is beyond the head.
   */
  async readSince(topic: TopicKey, after: number): Promise<HistoryRead> {
    const [head, raw, newestFirst] = (await READ_SINCE.run(
      this.redis,
      [this.keys.seq(topic), this.keys.log(topic)],
      [after, this.config.SOCKET_HISTORY_MAX_EVENTS],
    )) as [number, RawEntry[], number];
    if (after === head) return { head, recovered: true, events: [] };
    if (after > head || raw.length === 0) return { head, recovered: false, events: [] };
    const oldest = Date.now() - this.config.SOCKET_HISTORY_MAX_AGE_SECONDS * 1000;
    if (newestFirst === 1) return { head, recovered: false, ...epochRestart(raw, head, after, oldest) };

    const events: DeliveredEvent[] = [];
    let expect = after + 1;
    for (const entry of raw) {
      const ev = decodeEntry(entry);
      if (!ev || ev.seq !== expect || ev.publishedAt < oldest) return { head, recovered: false, events: [] };
      events.push(ev);
      expect++;
    }
    if (expect !== head + 1) return { head, recovered: false, events: [] };
    return { head, recovered: true, events };
  }
}

/**
 * The events of the epoch the topic restarted in, when `after` lies before that restart: walking
 * back from the head while seqs are consecutive, the run must end at an epoch's first seq (a
 * counter recreated above its floor after a Redis data loss). Otherwise nothing is replayable.
 */
function epochRestart(newestFirst: RawEntry[], head: number, after: number, oldest: number): { events: DeliveredEvent[]; resumeAfter?: number } {
  const run: DeliveredEvent[] = [];
  let expect = head;
  for (const entry of newestFirst) {
    const ev = decodeEntry(entry);
    if (!ev || ev.seq !== expect || ev.publishedAt < oldest) break;
    run.push(ev);
    if (isEpochStart(ev.seq)) {
      if (ev.seq <= after) break;
      return { events: run.reverse(), resumeAfter: ev.seq - 1 };
    }
    expect--;
  }
  return { events: [] };
}

function decodeEntry([id, fields]: RawEntry): DeliveredEvent | null {
  const seq = Number(id.slice(0, id.indexOf('-')));
  let event: string | undefined;
  let data: string | undefined;
  let t = NaN;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 'e') event = fields[i + 1];
    else if (fields[i] === 'd') data = fields[i + 1];
    else if (fields[i] === 't') t = Number(fields[i + 1]);
  }
  if (!Number.isSafeInteger(seq) || event === undefined || data === undefined || !Number.isFinite(t)) return null;
  return { seq, event, data, publishedAt: t };
}
