import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  authorizeJoin,
  EventPublisher,
  LIVE_TOPIC_KINDS,
  parseTopic,
  PLANNED_TOPIC_KINDS,
  replaysFromStart,
  streamTokenOf,
  tokenTopicKey,
  TOPIC_KINDS,
  TOPIC_RULES,
  TOPIC_TABLE,
  topicName,
  topicRef,
  topics,
  type AnyTopicSpec,
  type JoinLookups,
  type TopicKind,
} from '../../../shared/events';
import { hashStreamToken, STREAM_KINDS } from '../../../shared/platform/stream-tokens';

const token = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWpr';
const address = '0x52908400098527886E0F7030069857D2E4169EE7';
const spec = (kind: TopicKind): AnyTopicSpec => TOPIC_TABLE[kind];
/** An example parameter of the kind's name shape, and what a publisher would hold for it. */
const example = (kind: TopicKind) =>
  ({ chain: { arg: 31337, held: 31337 }, address: { arg: address.toLowerCase(), held: address }, token: { arg: token, held: hashStreamToken(token) } })[
    spec(kind).name.shape
  ];
const camelCase = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Lookups a rule must not touch: a coming-soon topic is refused without asking anything. */
const untouchable = new Proxy({} as JoinLookups, {
  get: (_t, prop) => {
    throw new Error(`looked up ${String(prop)}`);
  },
});

describe('the topic table: every kind declared once, completely', () => {
  it('has every part for every kind', () => {
    expect(TOPIC_KINDS.length).toBeGreaterThan(0);
    for (const kind of TOPIC_KINDS) {
      const s = spec(kind);
      expect([kind, s.status]).toEqual([kind, expect.stringMatching(/^(live|planned)$/)]);
      expect([kind, typeof s.authorize, typeof s.replayFromStart]).toEqual([kind, 'function', 'boolean']);
      expect([kind, s.name.template]).toEqual([kind, expect.stringMatching(/^[a-z_]+:/)]);
      if (s.status === 'live') expect([kind, Object.keys(s.events).length > 0]).toEqual([kind, true]);
    }
    expect([...LIVE_TOPIC_KINDS, ...PLANNED_TOPIC_KINDS].sort()).toEqual([...TOPIC_KINDS].sort());
  });

  it("parses each kind's own names back to that kind, and formats what publishers key", () => {
    for (const kind of TOPIC_KINDS) {
      const { arg, held } = example(kind);
      const name = topicName(kind, arg as never);
      const parsed = parseTopic(name);
      expect([kind, parsed?.kind]).toEqual([kind, kind]);
      expect([kind, parsed?.key]).toEqual([kind, spec(kind).name.key(held as never)]);
      expect([kind, name.startsWith(spec(kind).name.template.slice(0, spec(kind).name.template.indexOf('<')))]).toEqual([kind, true]);
    }
  });

  it('gives a stream-token kind exactly to the live token-named topics, one topic per stream kind, each replaying from its start', () => {
    for (const kind of LIVE_TOPIC_KINDS) {
      const s = spec(kind);
      const tokenNamed = s.name.shape === 'token';
      expect([kind, s.streamKind !== null]).toEqual([kind, tokenNamed]);
      // a private topic exists for its one client: a join without last_seq must miss nothing
      expect([kind, s.replayFromStart, replaysFromStart(kind)]).toEqual([kind, tokenNamed, tokenNamed]);
    }
    const opened = LIVE_TOPIC_KINDS.map((k) => spec(k).streamKind).filter((k) => k !== null);
    expect([...opened].sort()).toEqual([...STREAM_KINDS].sort());
    for (const kind of LIVE_TOPIC_KINDS) {
      const streamKind = spec(kind).streamKind;
      if (!streamKind) continue;
      const ref = topicRef(kind, hashStreamToken(token) as never);
      expect(tokenTopicKey(streamKind, hashStreamToken(token))).toBe(ref.key);
      expect(streamTokenOf(ref)).toEqual({ kind: streamKind, hash: hashStreamToken(token) });
      expect(ref.key).not.toContain(token);
    }
  });

  it('describes every event of a live kind by a zod object schema that renders as JSON Schema', () => {
    for (const kind of LIVE_TOPIC_KINDS) {
      for (const [event, schema] of Object.entries(spec(kind).events)) {
        expect([kind, event, schema instanceof z.ZodObject]).toEqual([kind, event, true]);
        expect(z.toJSONSchema(schema, { io: 'input' })).toMatchObject({ type: 'object' });
      }
    }
  });

  it('lets publishers send exactly the events of each live kind', () => {
    for (const kind of TOPIC_KINDS) {
      const own = Object.keys(spec(kind).events);
      for (const other of TOPIC_KINDS) {
        for (const event of Object.keys(spec(other).events)) {
          expect([kind, event, TOPIC_RULES.carries(kind, event)]).toEqual([kind, event, spec(kind).status === 'live' && own.includes(event)]);
        }
      }
    }
    expect(TOPIC_RULES.carries('constructor', 'rfq_request')).toBe(false);
    expect(TOPIC_RULES.carries('rfq_stream', 'toString')).toBe(false);
  });

  it('has a ref builder for each live kind and none for planned ones', () => {
    const builders = topics as unknown as Record<string, (held: unknown) => { kind: string }>;
    expect(Object.keys(builders).sort()).toEqual(LIVE_TOPIC_KINDS.map(camelCase).sort());
    for (const kind of LIVE_TOPIC_KINDS) expect(builders[camelCase(kind)](example(kind).held).kind).toBe(kind);
  });

  it('refuses a join of a planned kind without looking anything up', async () => {
    for (const kind of PLANNED_TOPIC_KINDS) {
      const parsed = parseTopic(topicName(kind, example(kind).arg as never))!;
      expect(await authorizeJoin(parsed, { token: 'x' }, untouchable)).toEqual({ ok: false, reason: 'this topic is coming soon and cannot be joined yet' });
      expect(Object.keys(spec(kind).events)).toEqual([]);
    }
  });

  it('holds publishers to the table at compile time and at run time', async () => {
    // refused before Redis is touched, so no connection is needed
    const pub = new EventPublisher({
      redis: null as never,
      config: {
        REDIS_PREFIX: 't:',
        SOCKET_HISTORY_MAX_EVENTS: 1,
        SOCKET_HISTORY_MAX_AGE_SECONDS: 1,
        SOCKET_SEQ_TTL_SECONDS: 1,
        SOCKET_TOKEN_TOPIC_GRACE_SECONDS: 1,
      },
    });
    // @ts-expect-error rfq_offer is not an event of quotes:<chain>:requests
    await expect(pub.publish(topics.quotesRequests(1), 'rfq_offer', { quote_id: 'q' })).rejects.toThrow(/does not belong on a quotes_requests topic/);
    // @ts-expect-error seq is the event log's, never the publisher's
    await expect(pub.publish(topics.rfqStream(hashStreamToken(token)), 'rfq_offer', { quote_id: 'q', seq: 1 })).rejects.toThrow(/must not carry seq/);
    // A payload without the fields its schema names does not compile (checked by `npm run typecheck`).
    // @ts-expect-error rfq_request names quote_id and chain_id
    const missingField = () => pub.publish(topics.quotesRequests(1), 'rfq_request', { quote_id: 'q' });
    // @ts-expect-error planned kinds have no builder: nothing is published to them
    const planned = () => topics.marginRequests(1);
    expect([typeof missingField, typeof planned]).toEqual(['function', 'function']);
  });
});

describe('docs/SOCKETS.md', () => {
  /** The table as docs/SOCKETS.md shows it between its topic-table markers. */
  function rendered(): string {
    const rows = TOPIC_KINDS.map((kind) => {
      const s = spec(kind);
      const events =
        Object.keys(s.events)
          .map((e) => `\`${e}\``)
          .join(', ') || '(none yet)';
      const from = s.replayFromStart ? 'its first event' : 'live';
      const opened = s.streamKind ? `stream token \`${s.streamKind}\`` : 'credential';
      if (s.status === 'planned') return `| \`${s.name.template}\` | planned | refused: coming soon (\`${s.authorize.name}\`) | - | ${events} |`;
      return `| \`${s.name.template}\` | live | ${opened} (\`${s.authorize.name}\`) | ${from} | ${events} |`;
    });
    return ['| Topic | Status | Joined with (rule) | Join without `last_seq` starts at | Events |', '|---|---|---|---|---|', ...rows].join('\n');
  }

  it('lists every topic kind as the table declares it', () => {
    const doc = readFileSync(path.join(__dirname, '../../../docs/SOCKETS.md'), 'utf8');
    const block = /<!-- topic-table:start[^>]*-->\n([\s\S]*?)\n<!-- topic-table:end -->/.exec(doc);
    expect(block).not.toBeNull();
    // On a difference, paste the expected block between the markers.
    expect(block![1]).toBe(rendered());
  });
});
