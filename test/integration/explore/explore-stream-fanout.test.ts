import { optionPairAbi } from '../../../shared/chain/abis';
import { clobFeed, ExploreStreamMinter, ExploreWatchers } from '../../../shared/explore';
import { topics } from '../../../shared/events';
import { EventHistory, type DeliveredEvent } from '../../../shared/platform/event-bus';
import { closeRedis, createRedis, type Redis } from '../../../shared/platform/redis';
import { hashStreamToken } from '../../../shared/platform/stream-tokens';
import { startWorkers, type Workers } from '../../support/workers';
import { cursorOf, openHarness, optionId, pairCall, runIndexer, waitFor, waitForHead, type Harness } from '../indexer/harness';

/**
 * Explore streams do not multiply the indexer's work: with 300 live CLOB stream tokens the
 * indexer appends each event once to the pair's outbox and publishes to no stream topic itself;
 * the workers fan the outbox out, and every token's topic holds its snapshot, then exactly the
 * pair's events above its snapshot's block, in chain order, once each.
 */
const TOKENS = 300;
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let workers: Workers;
let indexerRedis: Redis;
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
}, 90_000);

afterAll(async () => {
  await ix?.stop();
  await workers?.close(true);
  if (indexerRedis) await closeRedis(indexerRedis);
  await h?.close();
});

it(`${TOKENS} live stream tokens: one outbox append per batch from the indexer, every token its snapshot then its events`, async () => {
  const minter = new ExploreStreamMinter({ redis: h.env.redis, config: h.env.config, queue: h.env.queue });
  const minted: Awaited<ReturnType<ExploreStreamMinter['mint']>>[] = [];
  for (let i = 0; i < TOKENS; i++) minted.push(await minter.mint(clobFeed, 31337, pair()));
  const watchers = new ExploreWatchers(h.env.redis, h.env.config.REDIS_PREFIX);
  await waitFor(
    'every stream opened',
    () => watchers.list('clob', 31337, pair()),
    (w) => w.length === TOKENS,
    60_000,
  );

  // Live activity: five placements, one block each.
  const id = await optionId(h.chain, 3000n);
  const nextOrderId = () => h.chain.publicClient.readContract({ address: pair(), abi: optionPairAbi, functionName: 'nextOrderId' });
  const placed: string[] = [];
  sent.length = 0;
  for (let i = 0; i < 5; i++) {
    placed.push((await nextOrderId()).toString());
    await pairCall(h.chain, 1 + i, pair(), 'placeOrder', [id, true, BigInt(5 + i), 3n]);
  }
  await waitForHead(h);
  const head = (await cursorOf(h.env, 31337))!.block_number;

  const history = new EventHistory(h.env.redis, h.env.config);
  const eventsOf = async (token: string): Promise<DeliveredEvent[]> =>
    (await history.readSince(topics.exploreClobStream(hashStreamToken(token)).key, 0)).events;
  const placedOf = (evs: DeliveredEvent[]) =>
    evs
      .map((e) => JSON.parse(e.data) as { event?: string; args?: { orderId?: string } })
      .filter((p) => p.event === 'OrderPlaced')
      .map((p) => p.args?.orderId);
  // The workers deliver every placement to every token.
  await waitFor(
    'every token heard the five placements',
    async () => Promise.all(minted.map(async (m) => placedOf(await eventsOf(m.stream_token)).length)),
    (counts) => counts.every((c) => c === 5),
    60_000,
  );

  // The indexer itself published to no stream topic, and appended to the pair's outbox at most once per event.
  const touches = (part: string) => sent.filter((c) => c.some((a) => a.includes(part)));
  expect(touches('explore_clob_stream')).toEqual([]);
  const appends = touches(':outbox');
  expect(appends.length).toBeGreaterThanOrEqual(1);
  expect(appends.length).toBeLessThanOrEqual(placed.length);

  // Each token: its snapshot first (seq 1), then exactly the events above its snapshot's block, in chain order, once each.
  for (const m of minted) {
    const evs = await eventsOf(m.stream_token);
    expect(evs.map((e) => e.seq)).toEqual(evs.map((_, i) => i + 1));
    expect(evs[0].event).toBe('explore_clob_snapshot');
    const snap = JSON.parse(evs[0].data) as { block: { number: number }; reason: string };
    expect(snap.reason).toBe('join');
    const live = evs.slice(1).map((e) => JSON.parse(e.data) as { block_number: number; log_index: number; clob: string });
    for (const e of live) {
      expect(e.block_number).toBeGreaterThan(snap.block.number);
      expect(e.block_number).toBeLessThanOrEqual(head);
      expect(e.clob).toBe(pair());
    }
    const order = live.map((e) => e.block_number * 1e6 + e.log_index);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(new Set(order).size).toBe(order.length);
    expect(placedOf(evs)).toEqual(placed);
  }
}, 180_000);
