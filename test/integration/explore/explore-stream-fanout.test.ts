import { optionPairAbi } from '../../../shared/chain/abis';
import { clobFeed, ExploreStreamMinter, ExploreWatchers, feedTopic } from '../../../shared/explore';
import { topics } from '../../../shared/events';
import { EventHistory, RelayAnchors, type DeliveredEvent } from '../../../shared/platform/event-bus';
import { closeRedis, createRedis, type Redis } from '../../../shared/platform/redis';
import { hashStreamToken } from '../../../shared/platform/stream-tokens';
import { startWorkers, type Workers } from '../../support/workers';
import { cursorOf, openHarness, optionId, pairCall, runIndexer, waitFor, waitForHead, type Harness } from '../indexer/harness';
import { disconnect, join, phoenixSocket, startReplica, type Joined, type Replica } from '../socket/socket-harness';

/**
 * Explore streams multiply neither the indexer's work nor the workers': with 300 live CLOB
 * stream tokens the indexer appends each event once to the pair's outbox and publishes to no
 * stream topic itself; the workers publish each event once to the pair's feed topic and each
 * token's topic holds only its snapshot; the socket tier relays the feed to every joined stream,
 * which reads its snapshot, then exactly the pair's events above its snapshot's block, in chain
 * order, once each, numbered 1, 2, 3...
 */
const TOKENS = 300;
/** Streams joined over the socket (two connections, within the per-connection channel cap). */
const JOINED = 150;
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let workers: Workers;
let indexerRedis: Redis;
let replica: Replica;
const sockets: ReturnType<typeof phoenixSocket>[] = [];
/** Every command the indexer's own Redis client sent, as its argument strings. */
const sent: string[][] = [];

const pair = () => h.chain.addresses.pair;

beforeAll(async () => {
  h = await openHarness();
  await h.register({ confirmations: 0 });
  // The indexer gets a Redis client of its own, so what it sends can be counted apart from the workers'.
  indexerRedis = createRedis(h.env.config, { enableAutoPipelining: true });
  const send = indexerRedis.sendCommand.bind(indexerRedis);
  indexerRedis.sendCommand = ((cmd: { name: string; args: unknown[] }) => {
    sent.push([cmd.name, ...cmd.args.map((a) => String(a))]);
    return send(cmd as never);
  }) as typeof indexerRedis.sendCommand;
  ix = await runIndexer({ ...h.env, redis: indexerRedis });
  await waitForHead(h);
  workers = startWorkers(h.env);
  replica = await startReplica(h.env, { settings: { SOCKET_MAX_CHANNELS: 100, SOCKET_JOIN_BURST: JOINED } });
}, 90_000);

afterAll(async () => {
  await Promise.all(sockets.map((s) => disconnect(s)));
  await replica?.close();
  await ix?.stop();
  await workers?.close(true);
  if (indexerRedis) await closeRedis(indexerRedis);
  await h?.close();
});

it('an unwatched pair costs the indexer no outbox append: it asks whether anyone watches, after the commit, and builds nothing', async () => {
  const id = await optionId(h.chain, 2900n);
  sent.length = 0;
  await pairCall(h.chain, 1, pair(), 'placeOrder', [id, true, 4n, 1n]);
  await waitForHead(h);
  const touches = (part: string) => sent.filter((c) => c.some((a) => a.includes(part)));
  // The question, asked behind the tail loop once the batch committed...
  await waitFor(
    'the watcher check',
    async () => touches(':tokens').length,
    (n) => n >= 1,
    30_000,
  );
  // ...answered nobody: no entry was appended to the pair's outbox.
  expect(touches(':outbox')).toEqual([]);
  expect(await new ExploreWatchers(h.env.redis, h.env.config.REDIS_PREFIX).count('clob', 31337, pair())).toBe(0);
}, 60_000);

it(`${TOKENS} live stream tokens: one outbox append per batch from the indexer, one feed publish per event from the workers, every joined stream its snapshot then its events`, async () => {
  const minter = new ExploreStreamMinter({ redis: h.env.redis, config: h.env.config, queue: h.env.queue });
  const minted: Awaited<ReturnType<ExploreStreamMinter['mint']>>[] = [];
  for (let i = 0; i < TOKENS; i++) minted.push(await minter.mint(clobFeed, 31337, pair()));
  const watchers = new ExploreWatchers(h.env.redis, h.env.config.REDIS_PREFIX);
  await waitFor(
    'every stream opened',
    () => watchers.count('clob', 31337, pair()),
    (n) => n === TOKENS,
    60_000,
  );
  const history = new EventHistory(h.env.redis, h.env.config);
  const ownTopic = (token: string) => topics.exploreClobStream(hashStreamToken(token)).key;
  await waitFor(
    'every snapshot published',
    async () => Promise.all(minted.map(async (m) => history.head(ownTopic(m.stream_token)))),
    (heads) => heads.every((n) => n === 1),
    60_000,
  );

  // Half the streams joined on the socket, over two connections.
  const joined: Joined[] = [];
  for (let c = 0; c < 2; c++) {
    const socket = phoenixSocket(replica.url);
    sockets.push(socket);
    for (let i = c * (JOINED / 2); i < (c + 1) * (JOINED / 2); i++) joined.push(await join(socket, minted[i].topic));
  }
  expect(joined.every((j) => j.reply.status === 'ok')).toBe(true);

  // Live activity: five placements, one block each.
  const id = await optionId(h.chain, 3000n);
  const nextOrderId = () => h.chain.publicClient.readContract({ address: pair(), abi: optionPairAbi, functionName: 'nextOrderId' });
  const placed: string[] = [];
  const feed = feedTopic('clob', 31337, pair()).key;
  const feedBefore = await history.head(feed);
  sent.length = 0;
  for (let i = 0; i < 5; i++) {
    placed.push((await nextOrderId()).toString());
    await pairCall(h.chain, 1 + i, pair(), 'placeOrder', [id, true, BigInt(5 + i), 3n]);
  }
  await waitForHead(h);
  const head = (await cursorOf(h.env, 31337))!.block_number;

  const placedOf = (payloads: readonly object[]) =>
    (payloads as { event?: unknown; args?: { orderId?: string } }[]).filter((p) => p.event === 'OrderPlaced').map((p) => p.args?.orderId);
  await waitFor(
    'every joined stream heard the five placements',
    async () => joined.map((j) => placedOf(j.events.map((e) => e.payload)).length),
    (counts) => counts.every((c) => c === 5),
    60_000,
  );

  // The indexer itself published to no stream topic, and appended to the pair's outbox at most once per event.
  const touches = (part: string) => sent.filter((c) => c.some((a) => a.includes(part)));
  expect(touches('explore_clob_stream')).toEqual([]);
  const appends = touches(':outbox');
  expect(appends.length).toBeGreaterThanOrEqual(1);
  expect(appends.length).toBeLessThanOrEqual(placed.length);

  // The workers published each placement once, to the feed topic; every token's own topic still holds only its snapshot.
  const feedEvents: DeliveredEvent[] = (await history.readSince(feed, feedBefore)).events;
  expect(placedOf(feedEvents.map((e) => JSON.parse(e.data) as object))).toEqual(placed);
  expect(await Promise.all(minted.map((m) => history.head(ownTopic(m.stream_token))))).toEqual(minted.map(() => 1));
  // The workers settled every anchor once the first placement went past its snapshot's block.
  const anchors = new RelayAnchors(h.env.redis, h.env.config.REDIS_PREFIX);
  for (const m of minted) expect(await anchors.get(ownTopic(m.stream_token))).toMatchObject({ feed, settled: true });

  // Each joined stream: its snapshot first (seq 1), then exactly the events above its snapshot's block, in chain order, once each.
  for (const j of joined) {
    const evs = j.events;
    expect(evs.map((e) => e.payload.seq)).toEqual(evs.map((_, i) => i + 1));
    expect(evs[0].event).toBe('explore_clob_snapshot');
    const snap = evs[0].payload as unknown as { block: { number: number }; reason: string };
    expect(snap.reason).toBe('join');
    const live = evs.slice(1).map((e) => e.payload as unknown as { block_number: number; log_index: number; clob: string });
    for (const e of live) {
      expect(e.block_number).toBeGreaterThan(snap.block.number);
      expect(e.block_number).toBeLessThanOrEqual(head);
      expect(e.clob).toBe(pair());
    }
    const order = live.map((e) => e.block_number * 1e6 + e.log_index);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(order.length);
    expect(placedOf(evs.map((e) => e.payload))).toEqual(placed);
  }

  // A client resuming from seq 3 (over the settled anchor) gets exactly what followed, with the same numbers.
  const resumeSocket = phoenixSocket(replica.url);
  sockets.push(resumeSocket);
  const first = joined[0];
  const resumed = await join(resumeSocket, minted[0].topic, { last_seq: 3 });
  expect(resumed.reply).toEqual({ status: 'ok', response: { seq: 3, recovered: true } });
  await waitFor(
    'the resumed events',
    async () => resumed.events.length,
    (n) => n >= first.events.length - 3,
    30_000,
  );
  expect(resumed.events.map((e) => [e.payload.seq, e.event, e.payload.log_index])).toEqual(
    first.events.slice(3).map((e) => [e.payload.seq, e.event, e.payload.log_index]),
  );
}, 180_000);
