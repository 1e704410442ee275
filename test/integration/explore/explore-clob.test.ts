import type { Express } from 'express';
import { optionPairAbi } from '../../../shared/chain/abis';
import { exploreCredentials } from '../../support/explore';
import { buildApp, request } from '../../support/http';
import { bearer } from '../../support/wallets';
import { startWorkers, type Workers } from '../../support/workers';
import { cursorOf, mineBlocks, openHarness, optionId, pairCall, runIndexer, waitFor, waitForHead, type Harness } from '../indexer/harness';
import { disconnect, join, phoenixSocket, startReplica, type Joined, type Replica } from '../socket/socket-harness';

/**
 * Explore for CLOBs against a devchain with real activity: orders placed, filled and cancelled
 * and options transferred on the reference OptionPair, indexed by the real indexer, read through
 * the gated routes; then the live stream: snapshot, live events, resume and a reorg.
 */
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let app: Express;
let auth: Record<string, string>;
let idA: bigint;
let idB: bigint;
const orders: Record<string, bigint> = {};
const pair = () => h.chain.addresses.pair;
const addr = (i: number) => h.chain.accounts[i].address;

const nextOrderId = () => h.chain.publicClient.readContract({ address: pair(), abi: optionPairAbi, functionName: 'nextOrderId' });
async function place(name: string, from: number, id: bigint, isBuy: boolean, price: bigint, amount: bigint) {
  orders[name] = await nextOrderId();
  return pairCall(h.chain, from, pair(), 'placeOrder', [id, isBuy, price, amount]);
}

const get = (path: string) => request(app).get(path).set(auth);

beforeAll(async () => {
  h = await openHarness();
  app = buildApp(h.env).app;
  idA = await optionId(h.chain, 3000n);
  idB = await optionId(h.chain, 2000n, 1);
  await place('bid1', 1, idA, true, 5n, 10n);
  await place('bid2', 2, idA, true, 5n, 3n);
  await place('bid3', 3, idA, true, 4n, 7n);
  await place('ask1', 4, idA, false, 9n, 2n);
  await pairCall(h.chain, 5, pair(), 'fillOrder', [orders.bid1, 4n]);
  await pairCall(h.chain, 5, pair(), 'fillOrder', [orders.ask1, 2n]);
  await pairCall(h.chain, 3, pair(), 'cancelOrder', [orders.bid3]);
  await pairCall(h.chain, 1, pair(), 'transfer', [addr(6), idA, 1n]);
  await place('askB', 2, idB, false, 11n, 5n);
  await h.register({ confirmations: 0 });
  ix = await runIndexer(h.env);
  await waitForHead(h);
  const cred = await exploreCredentials(app, buildApp(h.env).ctx);
  auth = bearer(cred.keyedDelegate);
}, 90_000);

afterAll(async () => {
  await ix?.stop();
  await h?.close();
});

describe('reads', () => {
  it('overview: tokens, series with open interest, windows of fills and volume, the last fill', async () => {
    const { body } = await get(`/api/explore/clobs/${pair()}`).expect(200);
    const read = (functionName: 'token0' | 'token1' | 'premiumToken') =>
      h.chain.publicClient.readContract({ address: pair(), abi: optionPairAbi, functionName });
    expect(body).toMatchObject({ chain_id: 31337, clob: pair(), open_interest: '6', block: { number: (await cursorOf(h.env, 31337))!.block_number } });
    expect([body.token0, body.token1, body.premium_token]).toEqual([await read('token0'), await read('token1'), await read('premiumToken')]);
    expect(body.series).toEqual([
      expect.objectContaining({
        option_id: idA.toString(),
        option_type: 'call',
        strike_wad: '3000',
        open_interest: '6',
        orders_placed: 4,
        transfers: 3,
        fills_7d: 2,
        volume_7d: '6',
        expired: false,
      }),
      expect.objectContaining({
        option_id: idB.toString(),
        option_type: 'put',
        strike_wad: '2000',
        open_interest: '0',
        orders_placed: 1,
        transfers: 0,
        fills_7d: 0,
        volume_7d: '0',
      }),
    ]);
    // 4 x 5 + 2 x 9 of premium; makers 1 and 4, taker 5.
    expect(body.windows[1]).toMatchObject({ days: 7, fills: 2, volume: '6', premium_volume: '38', unique_traders: 3, unique_traders_estimated: false });
    expect(body.last_fill).toMatchObject({
      order_id: orders.ask1.toString(),
      maker: addr(4),
      taker: addr(5),
      maker_side: 'sell',
      price: '9',
      amount: '2',
      premium: '18',
      order_remaining: '0',
    });
  });

  it('book: levels aggregated per price, bids high to low, asks low to high; orders on request', async () => {
    const { body } = await get(`/api/clob/${pair()}/book?chain_id=31337&include_orders=true`).expect(200);
    const a = body.series.find((s: { option_id: string }) => s.option_id === idA.toString());
    expect(a.bids).toEqual([
      {
        price: '5',
        size: '9',
        orders: 2,
        order_list: [
          expect.objectContaining({ order_id: orders.bid1.toString(), owner: addr(1), amount: '10', remaining: '6' }),
          expect.objectContaining({ order_id: orders.bid2.toString(), owner: addr(2), amount: '3', remaining: '3' }),
        ],
      },
    ]);
    expect(a.asks).toEqual([]);
    // The book without orders is read in one statement, the book with them in a transaction of
    // several reads: the same answer, but for the order lists.
    const plain = (await get(`/api/clob/${pair()}/book?chain_id=31337`).expect(200)).body;
    const withoutLists = JSON.parse(JSON.stringify(body, (k, v) => (k === 'order_list' ? undefined : v)));
    expect(JSON.stringify(plain)).toBe(JSON.stringify(withoutLists));
    expect(plain.series.length).toBeGreaterThan(1);
    expect((await get(`/api/clob/${pair()}/book`).expect(200)).body).toEqual(plain);
    const only = (await get(`/api/clob/${pair()}/book?option_id=${idB}`).expect(200)).body;
    expect(only.series).toEqual([
      expect.objectContaining({ option_id: idB.toString(), option_type: 'put', bids: [], asks: [{ price: '11', size: '5', orders: 1 }] }),
    ]);
  });

  it('chain book: every CLOB of the chain, filtered by option type', async () => {
    const { body } = await get('/api/clob/book?chain_id=31337&option_type=put').expect(200);
    expect(body.clobs).toEqual([
      expect.objectContaining({
        clob: pair(),
        series: [expect.objectContaining({ option_id: idB.toString(), asks: [{ price: '11', size: '5', orders: 1 }] })],
      }),
    ]);
    expect((await get('/api/clob/book?chain_id=31337&token=0x000000000000000000000000000000000000dEaD').expect(200)).body.clobs).toEqual([]);
  });

  it('activity: newest first, every kind, paged by cursor without gaps or repeats', async () => {
    const all = (await get(`/api/clob/${pair()}/activity?limit=500`).expect(200)).body;
    expect(all.next_cursor).toBeNull();
    expect(all.items.map((i: { type: string }) => i.type)).toEqual([
      'placed', // askB
      'transfer', // 1 -> 6
      'cancelled',
      'filled', // the sell order; its mint to the filler is logged first
      'transfer',
      'filled', // the buy order; its mint to the order's owner is logged first
      'transfer',
      'placed',
      'placed',
      'placed',
      'placed',
    ]);
    expect(all.items[2]).toMatchObject({
      order_id: orders.bid3.toString(),
      option_id: idA.toString(),
      side: 'buy',
      price: '4',
      amount: '7',
      remaining: '0',
      account: addr(3),
    });
    expect(all.items[1]).toMatchObject({ account: addr(1), counterparty: addr(6), amount: '1', series: { option_type: 'call', strike_wad: '3000' } });
    const paged: unknown[] = [];
    let cursor: string | null = null;
    do {
      const res: request.Response = await get(`/api/clob/${pair()}/activity?limit=3${cursor ? `&cursor=${cursor}` : ''}`).expect(200);
      expect(res.body.items.length).toBeLessThanOrEqual(3);
      paged.push(...res.body.items);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all.items);
  });

  it('activity filters: type, series, address (either side) and time range combine', async () => {
    const types = (await get(`/api/clob/${pair()}/activity?type=cancelled,filled`).expect(200)).body.items.map((i: { type: string }) => i.type);
    expect(types).toEqual(['cancelled', 'filled', 'filled']);
    const b = (await get(`/api/clob/${pair()}/activity?option_id=${idB}`).expect(200)).body.items;
    expect(b).toEqual([expect.objectContaining({ type: 'placed', order_id: orders.askB.toString() })]);
    const six = (await get(`/api/clob/${pair()}/activity?address=${addr(6).toLowerCase()}`).expect(200)).body.items;
    expect(six).toEqual([expect.objectContaining({ type: 'transfer', counterparty: addr(6) })]);
    const five = (await get(`/api/clob/${pair()}/activity?address=${addr(5)}`).expect(200)).body.items.map((i: { type: string }) => i.type);
    expect(five).toEqual(['filled', 'transfer', 'filled']);
    const newest = (await get(`/api/clob/${pair()}/activity?limit=1`).expect(200)).body.items[0];
    const future = new Date(Date.parse(newest.time) + 1000).toISOString();
    expect((await get(`/api/clob/${pair()}/activity?since=${future}`).expect(200)).body.items).toEqual([]);
    expect((await get(`/api/clob/${pair()}/activity?until=${future}&limit=500`).expect(200)).body.items).toHaveLength(11);
  });

  it('fills: maker, taker, the resting side, price, premium, newest first', async () => {
    const { body } = await get(`/api/clob/${pair()}/fills`).expect(200);
    expect(body.next_cursor).toBeNull();
    expect(body.items).toEqual([
      expect.objectContaining({ order_id: orders.ask1.toString(), maker: addr(4), taker: addr(5), maker_side: 'sell', amount: '2', price: '9', premium: '18' }),
      expect.objectContaining({
        order_id: orders.bid1.toString(),
        maker: addr(1),
        taker: addr(5),
        maker_side: 'buy',
        amount: '4',
        price: '5',
        premium: '20',
        order_remaining: '6',
        option_type: 'call',
      }),
    ]);
    const first = (await get(`/api/clob/${pair()}/fills?limit=1`).expect(200)).body;
    const second = (await get(`/api/clob/${pair()}/fills?limit=1&cursor=${first.next_cursor}`).expect(200)).body;
    expect([...first.items, ...second.items]).toEqual(body.items);
    expect((await get(`/api/clob/${pair()}/fills?address=${addr(4)}`).expect(200)).body.items).toHaveLength(1);
  });

  it('summary: per day fills, volume, unique traders, totals and open interest over a window', async () => {
    const { body } = await get(`/api/clob/${pair()}/summary`).expect(200);
    expect(body.totals).toEqual({ fills: 2, volume: '6', premium_volume: '38', unique_traders: 3, unique_traders_estimated: false });
    expect(body.open_interest).toBe('6');
    expect(body.days).toEqual([{ day: expect.stringMatching(/^\d{4}-\d\d-\d\d$/), fills: 2, volume: '6', premium_volume: '38', unique_traders: 3 }]);
    const b = (await get(`/api/clob/${pair()}/summary?option_id=${idB}`).expect(200)).body;
    expect(b).toMatchObject({ option_id: idB.toString(), totals: { fills: 0, volume: '0' }, open_interest: '0', days: [] });
    const past = (await get(`/api/clob/${pair()}/summary?from=2020-01-01&to=2020-01-31`).expect(200)).body;
    expect(past).toMatchObject({ from_day: '2020-01-01', to_day: '2020-01-31', totals: { fills: 0 }, days: [] });
  });

  it.each([
    ['a cursor not from this route', `/api/clob/PAIR/activity?cursor=abc`, 'cursor'],
    ['a tampered cursor', `/api/clob/PAIR/fills?cursor=c1.${Buffer.from('["x"]').toString('base64url')}`, 'cursor'],
    ['a limit over 500', `/api/clob/PAIR/fills?limit=501`, 'limit'],
    ['a limit of 0', `/api/clob/PAIR/activity?limit=0`, 'limit'],
    ['an unknown activity type', `/api/clob/PAIR/activity?type=placed,minted`, 'type'],
    ['a bad time', `/api/clob/PAIR/activity?since=yesterday`, 'since'],
    ['since after until', `/api/clob/PAIR/activity?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z`, 'since'],
    ['a bad address filter', `/api/clob/PAIR/fills?address=0x12`, 'address'],
    ['a bad option id', `/api/clob/PAIR/book?option_id=-1`, 'option_id'],
    ['a depth over 100', `/api/clob/PAIR/book?depth=101`, 'depth'],
    ['a summary window over 366 days', `/api/clob/PAIR/summary?from=2024-01-01&to=2025-12-31`, 'from'],
    ['a bad date', `/api/clob/PAIR/summary?from=2025-02-30`, 'from'],
    ['a chain book without chain_id', `/api/clob/book`, 'chain_id'],
    ['a malformed CLOB address', `/api/clob/0x1234/summary`, 'address'],
  ])('400 naming the field: %s', async (_what, path, field) => {
    const res = await get(path.replace('PAIR', pair())).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  it('404 clob_not_found: an address no indexed network knows, or the right address on another chain', async () => {
    expect((await get('/api/clob/0x000000000000000000000000000000000000dEaD/fills').expect(404)).body.code).toBe('clob_not_found');
    expect((await get(`/api/explore/clobs/${pair()}?chain_id=1`).expect(404)).body.code).toBe('clob_not_found');
    expect((await request(app).post(`/api/explore/clobs/0x000000000000000000000000000000000000dEaD/stream`).set(auth).expect(404)).body.code).toBe(
      'clob_not_found',
    );
  });
});

describe('live stream explore_clob_stream:<token>', () => {
  let replica: Replica;
  let workers: Workers;
  const sockets: ReturnType<typeof phoenixSocket>[] = [];

  beforeAll(async () => {
    replica = await startReplica(h.env, { withApi: true });
    workers = startWorkers(h.env);
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => disconnect(s)));
    await workers?.close(true);
    await replica?.close();
  });

  const open = () => {
    const s = phoenixSocket(replica.url);
    sockets.push(s);
    return s;
  };
  const until = (j: Joined, what: string, check: (events: Joined['events']) => boolean, timeoutMs = 20_000) =>
    waitFor(what, async () => j.events, check, timeoutMs);

  it('snapshot on join, then placed / filled / transfer events in block order with seq, resumable with last_seq, and a reorg resends the book', async () => {
    const minted = (await request(replica.app).post(`/api/explore/clobs/${pair().toLowerCase()}/stream`).set(auth).expect(201)).body;
    expect(minted).toEqual({
      stream_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      topic: `explore_clob_stream:${minted.stream_token}`,
      expires_in: 3600,
    });
    const joined = await join(open(), minted.topic);
    expect(joined.reply.status).toBe('ok');
    await until(joined, 'the snapshot', (e) => e.length >= 1);
    const snap = joined.events[0];
    expect(snap.event).toBe('explore_clob_snapshot');
    expect(snap.payload).toMatchObject({
      seq: 1,
      chain_id: 31337,
      clob: pair(),
      reason: 'join',
      block: { number: (await cursorOf(h.env, 31337))!.block_number },
    });
    const book = (snap.payload.book as { option_id: string; bids: unknown[] }[]).find((s) => s.option_id === idA.toString());
    expect(book?.bids).toEqual([{ price: '5', size: '9', orders: 2 }]);
    expect((snap.payload.activity as unknown[]).length).toBe(11);

    // Live: a placement, then a fill (its mint transfer is logged just before it, in the same block).
    await place('live', 7, idB, true, 10n, 3n);
    await pairCall(h.chain, 7, pair(), 'fillOrder', [orders.askB, 1n]);
    await until(joined, 'three live events', (e) => e.length >= 4);
    const live = joined.events.slice(1, 4);
    expect(live.map((e) => [e.event, e.payload.event ?? null])).toEqual([
      ['explore_clob_event', 'OrderPlaced'],
      ['explore_clob_transfer', null],
      ['explore_clob_event', 'OrderFilled'],
    ]);
    expect(live.map((e) => e.payload.seq)).toEqual([2, 3, 4]);
    for (const e of live) expect(e.payload.block_number).toBeGreaterThan((snap.payload.block as { number: number }).number);
    // Every live event carries its block's timestamp (unix seconds) and the same instant as an ISO time (docs/EXPLORE.md).
    for (const e of live)
      expect(e.payload).toMatchObject({ block_timestamp: expect.any(Number), time: new Date(Number(e.payload.block_timestamp) * 1000).toISOString() });
    expect(live[1].payload).toMatchObject({ option_id: idB.toString(), receiver: addr(7), amount: '1' });

    // A client that saw seq 2 resumes from there and gets exactly what followed.
    const resumed = await join(open(), minted.topic, { last_seq: 2 });
    await until(resumed, 'the resumed events', (e) => e.length >= 2);
    expect(resumed.events.map((e) => e.payload.seq)).toEqual([3, 4]);

    // A reorg: an order placed on a fork that a longer chain replaces.
    await waitForHead(h);
    const fork = await h.chain.rpc<string>('evm_snapshot');
    await place('orphan', 8, idA, false, 20n, 4n);
    await until(joined, 'the orphaned placement', (e) =>
      e.some((x) => (x.payload.args as { orderId?: string } | undefined)?.orderId === orders.orphan.toString()),
    );
    await h.chain.rpc('evm_revert', [fork]);
    await h.chain.rpc('evm_increaseTime', [3600]);
    await mineBlocks(h.chain, 3);
    await waitForHead(h);
    await until(joined, 'the reorg and a fresh snapshot', (e) => e.some((x) => x.event === 'explore_clob_snapshot' && x.payload.reason === 'reorg'));
    const after = joined.events.slice(joined.events.findIndex((x) => x.payload.event === 'reorg'));
    expect(after[0]).toMatchObject({ event: 'explore_clob_event', payload: { event: 'reorg', ancestor_block: expect.any(Number), clob: pair() } });
    expect(after[1]).toMatchObject({ event: 'explore_clob_snapshot', payload: { reason: 'reorg', seq: after[0].payload.seq + 1 } });
    const fresh = after[1].payload.book as { option_id: string; asks: { price: string }[] }[];
    expect(fresh.find((s) => s.option_id === idA.toString())?.asks).toEqual([]);
    const seqs = joined.events.map((e) => e.payload.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    // Seven waits of up to 20 s each, one after the other: jest's 30 s default is the sum of
    // their normal durations on a busy machine, not a bound on any of them.
  }, 180_000);

  it('refuses a join with a token that is not an explore_clob token', async () => {
    const j = await join(open(), 'explore_clob_stream:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    j.channel.leave();
    expect(j.reply).toEqual({ status: 'error', response: { reason: 'invalid or expired stream token' } });
  });
});
