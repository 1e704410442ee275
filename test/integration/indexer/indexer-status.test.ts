import { getAddress } from 'viem';
import { PairDirectory } from '../../../shared/quotes';
import { freePort } from '../../support/chain';
import { buildApp, request } from '../../support/http';
import { openHarness, runIndexer, waitFor, waitForHead, type Harness } from './harness';

/**
 * `GET /api/indexer/status` and `/cores` with two networks, one of them unreachable: each
 * network's entry carries its own health, and only asking for the broken one (or every network
 * being down) is a 503. Nothing the RPC or the driver said reaches the answer.
 */
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let app: ReturnType<typeof buildApp>['app'];
const EXTRA_PAIR = getAddress('0x00000000000000000000000000000000000c0de5');

beforeAll(async () => {
  h = await openHarness({ INDEXER_STATUS_STALE_MS: '6000' });
  app = buildApp(h.env).app;
  await h.register({ confirmations: 0, contracts: { ...h.chain.network.contracts, pair_extra: EXTRA_PAIR } });
  // A second network whose RPC port nobody listens on.
  await h.networks.upsertNetwork({ chain_id: 1337, name: 'Unreachable', rpc_urls: [`http://127.0.0.1:${await freePort()}`], contracts: {}, confirmations: 0 });
  ix = await runIndexer(h.env);
  await waitForHead(h);
}, 60_000);

afterAll(async () => {
  await ix?.stop();
  await h?.close();
});

const unreachable = { code: 'rpc_unavailable', message: 'RPC of chain 1337 does not answer' };

describe('indexer status and cores per network', () => {
  it('marks only the unreachable network unhealthy, with fixed words and a code', async () => {
    const body = (
      await waitFor(
        'both reported',
        async () => request(app).get('/api/indexer/status'),
        (r) => r.status === 200 && r.body.networks.length === 2 && r.body.networks.every((n: { state: string }) => n.state !== 'unknown'),
      )
    ).body;
    const [dev, broken] = [31337, 1337].map((id) => body.networks.find((n: { chain_id: number }) => n.chain_id === id));
    expect(dev).toMatchObject({ healthy: true, problem: null, state: expect.stringMatching(/^(backfill|realtime)$/) });
    expect(broken).toMatchObject({ healthy: false, problem: unreachable, action: null, cursor: null, cursors: [] });
    // The RPC's own words (connection refused, fetch failed, the URL...) stay in the logs.
    const raw: { last_error: string }[] = await h.env.db.query(`SELECT last_error FROM indexer_status WHERE chain_id = 1337`);
    expect(raw[0].last_error).toBeTruthy();
    expect(JSON.stringify(body)).not.toMatch(/refused|fetch|127\.0\.0\.1|eth_/i);

    await request(app).get('/api/indexer/status?chain_id=31337').expect(200);
    const asked = await request(app).get('/api/indexer/status?chain_id=1337').expect(503);
    expect(asked.body).toEqual({
      error: `indexer unavailable: ${unreachable.message}`,
      code: 'indexer_unavailable',
      details: [{ path: 'networks.1337', message: unreachable.message }],
      request_id: expect.any(String),
    });
    expect(asked.headers['retry-after']).toBe('5');
  });

  it('lists the registered pairs beside the discovered ones, once each, and never the factory', async () => {
    const res = await request(app).get('/api/indexer/cores').expect(200);
    const dev = res.body.networks.find((n: { chain_id: number }) => n.chain_id === 31337);
    expect(dev.healthy).toBe(true);
    expect(dev.cores).toEqual([
      {
        address: h.chain.addresses.pair,
        token0: h.chain.addresses.weth,
        token1: h.chain.addresses.usdc,
        premium_token: h.chain.addresses.usdc,
        created_block: expect.any(Number),
        discovered: true,
        registered: true,
      },
      { address: EXTRA_PAIR, token0: null, token1: null, premium_token: null, created_block: null, discovered: false, registered: true },
    ]);
    expect(res.body.networks.find((n: { chain_id: number }) => n.chain_id === 1337)).toEqual({ chain_id: 1337, healthy: false, cores: [] });
    await request(app).get('/api/indexer/cores?chain_id=1337').expect(503);
    // Quote creation accepts exactly these pairs (one rule decides both): the registry pair yes, the factory no.
    const dir = await new PairDirectory(h.env.db, 0).get(31337);
    expect(dir!.pairs.has(EXTRA_PAIR)).toBe(true);
    expect(dir!.pairs.has(h.chain.addresses.pair)).toBe(true);
    expect(dir!.pairs.has(h.chain.addresses.pairFactory)).toBe(false);
  });

  it('answers 503 naming every network once all of them are down', async () => {
    // Staleness is 6 s (a busy machine can delay a 100 ms heartbeat by more than a second).
    await ix.stop();
    const res = await waitFor(
      'every network silent',
      async () => request(app).get('/api/indexer/status'),
      (r) => r.status === 503,
      25_000,
    );
    expect(res.body.code).toBe('indexer_unavailable');
    expect(res.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['networks.1337', 'networks.31337']);
    expect(res.body.details.find((d: { path: string }) => d.path === 'networks.31337').message).toMatch(/^indexer has not reported for chain 31337 for \d+ s$/);
  }, 40_000);
});
