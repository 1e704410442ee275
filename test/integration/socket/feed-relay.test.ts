import { feedTopic } from '../../../shared/explore';
import { EventPublisher, topics } from '../../../shared/events';
import { EventHistory, EventKeys, RelayAnchors } from '../../../shared/platform/event-bus';
import { hashStreamToken, StreamTokens } from '../../../shared/platform/stream-tokens';
import { randomAddress } from '../../support/fixtures';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { disconnect, join, phoenixSocket, startReplica, waitFor, type Joined, type Replica } from './socket-harness';

/**
 * Relayed topics on a real replica and Redis: an explore stream's own topic holds its snapshot
 * (seq 1); everything after comes from the subject's feed topic, published once for all its
 * streams. The anchor says where in the feed the snapshot stands; the relay skips the leading
 * feed events the snapshot reflects and numbers the rest 2, 3... on the stream's own topic.
 */
const HISTORY = 20;
let env: TestEnv;
let replica: Replica;
let pub: EventPublisher;
let tokens: StreamTokens;
let anchors: RelayAnchors;
let history: EventHistory;
const sockets: ReturnType<typeof phoenixSocket>[] = [];

beforeAll(async () => {
  env = await createTestEnv({ SOCKET_HISTORY_MAX_EVENTS: String(HISTORY) });
  replica = await startReplica(env);
  pub = new EventPublisher({ redis: env.redis, config: env.config });
  tokens = new StreamTokens(env.redis, env.config.REDIS_PREFIX);
  anchors = new RelayAnchors(env.redis, env.config.REDIS_PREFIX);
  history = new EventHistory(env.redis, env.config);
});

afterAll(async () => {
  await Promise.all(sockets.map((s) => disconnect(s)));
  await replica?.close();
  await env?.close();
});

const open = () => {
  const s = phoenixSocket(replica.url);
  sockets.push(s);
  return s;
};
const until = (j: Joined, n: number, what: string) => waitFor(() => j.events.length >= n, 20_000, what);

/** A subject of its own, so each test starts from an empty feed. */
function subject() {
  const clob = randomAddress();
  return { clob, feed: feedTopic('clob', 31337, clob) };
}

const event = (clob: string, block: number, name = 'OrderPlaced') => ({ chain_id: 31337, clob, event: name, block_number: block, args: {} });

/** What the workers do when a stream opens: the anchor at the feed's head, then the snapshot on the token's topic. */
async function openStream(feed: ReturnType<typeof feedTopic>, clob: string, block: number, token?: string) {
  token ??= await tokens.mint('explore_clob', 600, { chain_id: 31337, subject: clob });
  const own = topics.exploreClobStream(hashStreamToken(token));
  await anchors.set(own.key, { feed: feed.key, after: await history.head(feed.key), block, settled: false }, 600_000);
  await pub.publish(own, 'explore_clob_snapshot', { chain_id: 31337, clob, reason: 'join', block: { number: block } }, { idempotencyKey: 'snapshot.open' });
  return token;
}

it('skips the leading feed events the snapshot reflects, numbers the rest on, and resumes from last_seq', async () => {
  const { clob, feed } = subject();
  await pub.publish(feed, 'explore_clob_event', event(clob, 4));
  const token = await openStream(feed, clob, 6);
  // Committed before the snapshot but published after it: in the snapshot already.
  await pub.publish(feed, 'explore_clob_event', event(clob, 5));
  await pub.publish(feed, 'explore_clob_event', event(clob, 6));
  await pub.publish(feed, 'explore_clob_event', event(clob, 7));
  await pub.publish(feed, 'explore_clob_transfer', { chain_id: 31337, clob, option_id: '1', block_number: 7 });

  const j = await join(open(), `explore_clob_stream:${token}`);
  expect(j.reply).toEqual({ status: 'ok', response: { seq: 0, recovered: true } });
  await until(j, 3, 'the snapshot and two relayed events');
  expect(j.events.map((e) => [e.event, e.payload.seq, e.payload.block_number ?? (e.payload.block as { number: number }).number])).toEqual([
    ['explore_clob_snapshot', 1, 6],
    ['explore_clob_event', 2, 7],
    ['explore_clob_transfer', 3, 7],
  ]);

  // Live: the next feed event reaches the stream as seq 4.
  await pub.publish(feed, 'explore_clob_event', event(clob, 8, 'OrderFilled'));
  await until(j, 4, 'the live event');
  expect(j.events[3].payload).toMatchObject({ seq: 4, event: 'OrderFilled', block_number: 8 });

  // A client that had seq 2 gets exactly what followed, with the same numbers.
  const resumed = await join(open(), `explore_clob_stream:${token}`, { last_seq: 2 });
  expect(resumed.reply).toEqual({ status: 'ok', response: { seq: 2, recovered: true } });
  await until(resumed, 2, 'the resumed events');
  expect(resumed.events.map((e) => [e.event, e.payload.seq])).toEqual([
    ['explore_clob_transfer', 3],
    ['explore_clob_event', 4],
  ]);
  // The stream's own topic holds its snapshot and nothing else: the feed was published to once per event.
  expect((await history.readSince(topics.exploreClobStream(hashStreamToken(token)).key, 0)).head).toBe(1);
  expect(await history.head(feed.key)).toBe(6);
});

it('relays a rollback notice and a reorg snapshot from the feed, and everything after them, whatever their blocks', async () => {
  const { clob, feed } = subject();
  const token = await openStream(feed, clob, 10);
  const j = await join(open(), `explore_clob_stream:${token}`);
  await until(j, 1, 'the snapshot');
  await pub.publish(feed, 'explore_clob_event', event(clob, 11));
  await pub.publish(feed, 'explore_clob_event', { chain_id: 31337, clob, event: 'reorg', ancestor_block: 9, ancestor_hash: null });
  await pub.publish(feed, 'explore_clob_snapshot', { chain_id: 31337, clob, reason: 'reorg', block: { number: 9 } });
  await pub.publish(feed, 'explore_clob_event', event(clob, 10));
  await until(j, 5, 'the reorg and what followed');
  expect(j.events.map((e) => [e.payload.seq, e.event, e.payload.event ?? e.payload.reason])).toEqual([
    [1, 'explore_clob_snapshot', 'join'],
    [2, 'explore_clob_event', 'OrderPlaced'],
    [3, 'explore_clob_event', 'reorg'],
    [4, 'explore_clob_snapshot', 'reorg'],
    [5, 'explore_clob_event', 'OrderPlaced'],
  ]);
});

it('a stream joined before its snapshot is published starts relaying once the snapshot arrives', async () => {
  const { clob, feed } = subject();
  const token = await tokens.mint('explore_clob', 600, { chain_id: 31337, subject: clob });
  const j = await join(open(), `explore_clob_stream:${token}`);
  expect(j.reply).toEqual({ status: 'ok', response: { seq: 0, recovered: true } });
  await pub.publish(feed, 'explore_clob_event', event(clob, 20));
  await openStream(feed, clob, 21, token);
  await pub.publish(feed, 'explore_clob_event', event(clob, 21));
  await pub.publish(feed, 'explore_clob_event', event(clob, 22));
  await until(j, 2, 'the snapshot and the relayed event');
  await pub.publish(feed, 'explore_clob_event', event(clob, 23));
  await until(j, 3, 'the live event');
  expect(j.events.map((e) => [e.payload.seq, e.event, e.payload.block_number ?? (e.payload.block as { number: number }).number])).toEqual([
    [1, 'explore_clob_snapshot', 21],
    [2, 'explore_clob_event', 22],
    [3, 'explore_clob_event', 23],
  ]);
});

it('many streams of one subject each get their own numbering from one publish per feed event', async () => {
  const { clob, feed } = subject();
  const streams: { token: string; joined: Joined; startsAt: number }[] = [];
  const socket = open();
  for (let i = 0; i < 30; i++) {
    // Streams open at different points of the feed: each hears only what followed its own snapshot.
    const token = await openStream(feed, clob, 100 + i);
    streams.push({ token, joined: await join(socket, `explore_clob_stream:${token}`), startsAt: 100 + i });
    await pub.publish(feed, 'explore_clob_event', event(clob, 101 + i));
  }
  for (const s of streams) {
    const expected = 30 - (s.startsAt - 100);
    await until(s.joined, 1 + expected, 'every stream its events');
    expect(s.joined.events.map((e) => e.payload.seq)).toEqual(Array.from({ length: 1 + expected }, (_, i) => i + 1));
    expect(s.joined.events.slice(1).map((e) => e.payload.block_number)).toEqual(Array.from({ length: expected }, (_, i) => s.startsAt + 1 + i));
  }
  expect(await history.head(feed.key)).toBe(30);
});

it('a settled anchor lets a long-running stream resume from last_seq with only the recent feed in history', async () => {
  const { clob, feed } = subject();
  const token = await openStream(feed, clob, 50);
  const own = topics.exploreClobStream(hashStreamToken(token));
  // Committed before the snapshot, published after it: the leading run, one event.
  await pub.publish(feed, 'explore_clob_event', event(clob, 50));
  const j = await join(open(), `explore_clob_stream:${token}`);
  // Far more events than the feed's history keeps: the anchor's neighbourhood is trimmed away.
  for (let i = 0; i < HISTORY * 2; i++) await pub.publish(feed, 'explore_clob_event', event(clob, 51 + i));
  await until(j, 1 + HISTORY * 2, 'every event, live');
  expect(j.events.map((e) => e.payload.seq)).toEqual(Array.from({ length: 1 + HISTORY * 2 }, (_, i) => i + 1));
  // What the workers write once the first event past the snapshot's block went out: the anchor moved past the leading run.
  const anchor = (await anchors.get(own.key))!;
  await anchors.settle(own.key, { feed: anchor.feed, after: anchor.after + 1, block: anchor.block });
  expect(await anchors.get(own.key)).toMatchObject({ settled: true, after: anchor.after + 1 });

  // A client that had seq 35 resumes: only the feed after its place is read, and numbered as before.
  const last = 1 + HISTORY * 2;
  const resumed = await join(open(), `explore_clob_stream:${token}`, { last_seq: last - 5 });
  expect(resumed.reply).toEqual({ status: 'ok', response: { seq: last - 5, recovered: true } });
  await until(resumed, 5, 'the resumed events');
  expect(resumed.events.map((e) => [e.payload.seq, e.payload.block_number])).toEqual(
    j.events.slice(last - 5).map((e) => [e.payload.seq, e.payload.block_number]),
  );
  // And live events keep both clients on the same numbers.
  await pub.publish(feed, 'explore_clob_event', event(clob, 51 + HISTORY * 2));
  await until(resumed, 6, 'the next live event');
  await until(j, last + 1, 'the next live event');
  expect(resumed.events[5].payload.seq).toBe(last + 1);
  expect(j.events[last].payload.seq).toBe(last + 1);
});

it('refuses a rejoin the feed history no longer covers, or one claiming more than was sent, telling the client to mint anew', async () => {
  const { clob, feed } = subject();
  const token = await openStream(feed, clob, 1);
  for (let i = 0; i < HISTORY + 5; i++) await pub.publish(feed, 'explore_clob_event', event(clob, 2 + i));
  const lost = await join(open(), `explore_clob_stream:${token}`);
  lost.channel.leave();
  expect(lost.reply).toEqual({ status: 'error', response: { reason: "this stream's events are no longer in history: mint a new stream" } });

  const { clob: other, feed: otherFeed } = subject();
  const second = await openStream(otherFeed, other, 1);
  await pub.publish(otherFeed, 'explore_clob_event', event(other, 2));
  const ahead = await join(open(), `explore_clob_stream:${second}`, { last_seq: 5 });
  ahead.channel.leave();
  expect(ahead.reply).toEqual({ status: 'error', response: { reason: "this stream's events are no longer in history: mint a new stream" } });

  // A stream whose snapshot went out and is gone from its own log would never hear it again: refused too.
  const { clob: third, feed: thirdFeed } = subject();
  const gone = await openStream(thirdFeed, third, 1);
  await env.redis.del(new EventKeys(env.config.REDIS_PREFIX).log(topics.exploreClobStream(hashStreamToken(gone)).key));
  const lostSnapshot = await join(open(), `explore_clob_stream:${gone}`);
  lostSnapshot.channel.leave();
  expect(lostSnapshot.reply).toEqual({ status: 'error', response: { reason: "this stream's events are no longer in history: mint a new stream" } });
  // A client that already has it resumes without it.
  const resumed = await join(open(), `explore_clob_stream:${gone}`, { last_seq: 1 });
  expect(resumed.reply).toEqual({ status: 'ok', response: { seq: 1, recovered: true } });
  await pub.publish(thirdFeed, 'explore_clob_event', event(third, 2));
  await until(resumed, 1, 'the next event');
  expect(resumed.events.map((e) => [e.payload.seq, e.payload.block_number])).toEqual([[2, 2]]);
});
