import type { Config } from '../config';
import { LuaScript, type Redis } from '../redis';
import { EventKeys } from './event-keys';
import type { DeliveredEvent, TopicKey } from './event-types';

/**
 * The head seq and the entries after `after`, read in one step so that the entries reach
 * exactly up to the head. Reads nothing when the client is level, ahead (the topic was reset),
 * or further behind than the log can possibly hold.
 * KEYS: seq, log. ARGV: after, max entries.
 */
const READ_SINCE = new LuaScript(
  `
local head = tonumber(redis.call('GET', KEYS[1]) or '0')
local after = tonumber(ARGV[1])
if after >= head or head - after > tonumber(ARGV[2]) then return {head, {}} end
return {head, redis.call('XRANGE', KEYS[2], string.format('%d', after + 1), '+', 'COUNT', ARGV[2])}
`,
  2,
);

export interface HistoryRead {
  /** The topic's last seq at the moment of the read (0 when it never had an event). */
  head: number;
  /** True when `events` are exactly after+1 .. head (none missing, none expired). */
  recovered: boolean;
  /** The events to replay, in order; empty unless recovered. */
  events: DeliveredEvent[];
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
    const [head, raw] = (await READ_SINCE.run(this.redis, [this.keys.seq(topic), this.keys.log(topic)], [after, this.config.SOCKET_HISTORY_MAX_EVENTS])) as [
      number,
      RawEntry[],
    ];
    if (after === head) return { head, recovered: true, events: [] };
    if (after > head || raw.length === 0) return { head, recovered: false, events: [] };

    const oldest = Date.now() - this.config.SOCKET_HISTORY_MAX_AGE_SECONDS * 1000;
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
