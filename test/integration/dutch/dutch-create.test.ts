import { randomUUID } from 'node:crypto';
import { zeroAddress } from 'viem';
import { dutchFillTypedData, parseDutchRequest } from '../../../shared/protocol';
import { NetworksService } from '../../../shared/networks';
import { dutchBody, FIXTURE_MOTHERSHIP, recordFixturePair } from '../../support/dutch';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { FIXTURE_PAIR } from '../../support/quotes';
import { newWallet } from '../../support/wallets';
import { freePort } from '../../support/chain';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/** POST /api/quote with a Dutch request: the 201 and every refusal, each naming its field and storing nothing. */
describe('Dutch create', () => {
  let env: TestEnv;
  let app: ReturnType<typeof buildApp>['app'];

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    await recordFixturePair(env.db);
  });
  afterAll(() => env.close());

  const count = async () => Number((await env.db.query(`SELECT count(*)::int AS n FROM quotes WHERE offer_format = 'dutch_only'`))[0].n);

  /** Posts and expects a 400 naming `path`; nothing is stored. */
  async function refused(body: Record<string, unknown>, path: string, message?: RegExp) {
    const before = await count();
    const res = await request(app).post('/api/quote').send(body).expect(400);
    expect(res.body.code).toBe('validation_failed');
    const paths = (res.body.details as { path: string; message: string }[]).map((d) => d.path);
    expect(paths).toContain(path);
    if (message) expect(res.body.details.find((d: { path: string }) => d.path === path).message).toMatch(message);
    expect(await count()).toBe(before);
    return res;
  }

  it('answers 201 with the standard quote shape plus dutch_phase competing and the phase deadlines', async () => {
    const taker = newWallet();
    const body = await dutchBody(taker, { body: { compete_ms: 1500, exclusive_ms: undefined, exclusive_seconds: 2 } });
    const before = Date.now();
    const res = await request(app).post('/api/quote').send(body).expect(201);
    const q = res.body.quote;
    expect(q).toMatchObject({
      offer_format: 'dutch_only',
      state: 'open',
      dutch_phase: 'competing',
      directions: [1, 0],
      taker_address: taker.address,
      referrer: zeroAddress,
      taker_signature: body.taker_signature,
      award: null,
      winner: null,
    });
    expect(res.body.topic).toBe(`rfq_stream:${res.body.stream_token}`);
    const competeEnd = Date.parse(q.compete_ends_at);
    // compete_ms counts from the API's clock when the request arrived: between the send and the answer.
    expect(competeEnd).toBeGreaterThanOrEqual(before + 1500);
    expect(competeEnd - before).toBeLessThanOrEqual(1500 + (Date.now() - before));
    expect(Date.parse(q.exclusive_ends_at) - competeEnd).toBe(2000);
    expect(q.dutch_request.taker_nonce).toBe((body.dutch_request as { taker_nonce: string }).taker_nonce);
    expect(q.request_digest).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('clamps compete_ms to the auction time left', async () => {
    const now = Math.floor(Date.now() / 1000);
    const res = await request(app)
      .post('/api/quote')
      .send(await dutchBody(newWallet(), { request: { auction_end: now + 60 }, body: { compete_ms: 600_000 } }))
      .expect(201);
    expect(Date.parse(res.body.quote.compete_ends_at)).toBeLessThanOrEqual(Date.parse(res.body.quote.expires_at));
    expect(Date.parse(res.body.quote.expires_at)).toBe((now + 60) * 1000);
  });

  it('refuses a signature that does not recover to taker_address', async () => {
    await refused(await dutchBody(newWallet(), { signer: newWallet() }), 'taker_signature', /recovers to 0x[0-9a-fA-F]{40}, not taker_address/);
    await refused(await dutchBody(newWallet(), { body: { taker_signature: '0x1234' } }), 'taker_signature');
  });

  it('refuses a request signed for another domain (chain or mothership)', async () => {
    const taker = newWallet();
    const body = await dutchBody(taker);
    const parsed = parseDutchRequest(body.dutch_request, { now: 0 });
    for (const [chainId, mothership] of [
      [1, FIXTURE_MOTHERSHIP],
      [31337, randomAddress()],
    ] as const) {
      const signature = await taker.signTypedData(dutchFillTypedData(chainId, mothership, parsed));
      await refused({ ...body, taker_signature: signature }, 'taker_signature', /recovers to/);
    }
  });

  it('refuses maker_address_hash other than directionsHash(directions)', async () => {
    await refused(
      await dutchBody(newWallet(), { request: { maker_address_hash: `0x${'11'.repeat(32)}` } }),
      'dutch_request.maker_address_hash',
      /directionsHash/,
    );
  });

  it("refuses directions that do not follow the legs' structures with one polarity", async () => {
    await refused(await dutchBody(newWallet(), { body: { directions: [1, 1] } }), 'directions[1]', /one polarity/);
  });

  it('refuses a required_dutch_authority other than the mothership (a required_authority is asked on chain: test/security/fill-authority.attack.test.ts)', async () => {
    await refused(await dutchBody(newWallet(), { request: { required_dutch_authority: randomAddress() } }), 'dutch_request.required_dutch_authority');
  });

  it("a required_authority the API cannot ask (the chain's RPC does not answer) is 503 rpc_unavailable, nothing stored", async () => {
    // A network whose only RPC is a port nothing listens on.
    await new NetworksService(env.db).upsertNetwork(networkFile(31338, { rpc_urls: [`http://127.0.0.1:${await freePort()}`] }));
    // The pair's tokens are indexed, so the token check needs no RPC and the authority is what is asked.
    await recordFixturePair(env.db, 31338);
    const before = await count();
    const body = await dutchBody(newWallet(), { chainId: 31338, request: { required_authority: randomAddress() } });
    const res = await request(app).post('/api/quote').send(body).expect(503);
    expect(res.body.code).toBe('rpc_unavailable');
    expect(await count()).toBe(before);
  });

  it('a chain without a mothership, or a pair whose tokens cannot be read, is 503 network_unavailable, nothing stored', async () => {
    // A registered network whose registry names the pair but no mothership.
    await new NetworksService(env.db).upsertNetwork(networkFile(31339, { contracts: { opshuns_core: networkFile().contracts.opshuns_core } }));
    // A network with the pair in its registry but not indexed, and an RPC that does not answer.
    const deadRpc = `http://127.0.0.1:${await freePort()}`;
    await new NetworksService(env.db).upsertNetwork(networkFile(31340, { rpc_urls: [deadRpc] }));
    const before = await count();
    const noMothership = await request(app)
      .post('/api/quote')
      .send(await dutchBody(newWallet(), { chainId: 31339 }))
      .expect(503);
    expect(noMothership.body).toEqual({ error: 'chain 31339 has no mothership configured', code: 'network_unavailable', request_id: expect.any(String) });
    const unreadable = await request(app)
      .post('/api/quote')
      .send(await dutchBody(newWallet(), { chainId: 31340 }))
      .expect(503);
    expect(unreadable.body).toMatchObject({ code: 'network_unavailable' });
    expect(unreadable.body.error).toMatch(new RegExp(`^cannot read the tokens of pair ${FIXTURE_PAIR} on chain 31340: `));
    expect(await count()).toBe(before);
  });

  it('refuses a non-zero referrer: the filler would see it', async () => {
    await refused(await dutchBody(newWallet(), { request: { referrer: randomAddress() } }), 'dutch_request.referrer', /zero address/);
  });

  it('refuses an auction already over, and one longer than the operator allows', async () => {
    const now = Math.floor(Date.now() / 1000);
    await refused(
      await dutchBody(newWallet(), {
        request: {
          auction_end: now - 1,
          dutch_premium: {
            token: '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853',
            maker_pays_taker: false,
            start_premium: '1',
            end_premium: '2',
            decay_rate: '0',
            auction_start: now - 100,
          },
        },
      }),
      'dutch_request.auction_end',
      /future/,
    );
    await new NetworksService(env.db).setSetting('dutch_limits', { max_auction_seconds: 60 });
    try {
      await refused(await dutchBody(newWallet()), 'dutch_request.auction_end', /at most 60 seconds/);
    } finally {
      await new NetworksService(env.db).setSetting('dutch_limits', {});
    }
  });

  it("refuses a curve that does not move from the taker's best price toward the maker's", async () => {
    const now = Math.floor(Date.now() / 1000);
    const premium = (makerPays: boolean, start: string, end: string) => ({
      dutch_premium: {
        token: '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853',
        maker_pays_taker: makerPays,
        start_premium: start,
        end_premium: end,
        decay_rate: '0',
        auction_start: now,
      },
    });
    await refused(await dutchBody(newWallet(), { request: premium(false, '200', '100') }), 'dutch_request.dutch_premium.end_premium', /above start_premium/);
    await refused(await dutchBody(newWallet(), { request: premium(true, '100', '200') }), 'dutch_request.dutch_premium.end_premium', /below start_premium/);
    await refused(await dutchBody(newWallet(), { request: premium(true, '100', '100') }), 'dutch_request.dutch_premium.end_premium');
    await request(app)
      .post('/api/quote')
      .send(await dutchBody(newWallet(), { request: premium(true, '200', '100') }))
      .expect(201);
  });

  it('refuses a reused taker_nonce for that taker, but not the same nonce of another taker', async () => {
    const taker = newWallet();
    const first = await dutchBody(taker);
    await request(app).post('/api/quote').send(first).expect(201);
    const nonce = (first.dutch_request as { taker_nonce: string }).taker_nonce;
    await refused(await dutchBody(taker, { request: { taker_nonce: nonce } }), 'dutch_request.taker_nonce', /already used/);
    await request(app)
      .post('/api/quote')
      .send(await dutchBody(newWallet(), { request: { taker_nonce: nonce } }))
      .expect(201);
  });

  it('a create refused for a reused taker_nonce leaves no stream token behind, with or without an Idempotency-Key (an HTTP fuzz finding)', async () => {
    const tokens = async () => {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await env.redis.scan(cursor, 'MATCH', `${env.config.REDIS_PREFIX}stream-token:rfq:*`, 'COUNT', 1000);
        keys.push(...found);
        cursor = next;
      } while (cursor !== '0');
      return keys.sort();
    };
    const taker = newWallet();
    const first = await dutchBody(taker);
    await request(app).post('/api/quote').send(first).expect(201);
    const before = await tokens();
    const again = await dutchBody(taker, { request: { taker_nonce: (first.dutch_request as { taker_nonce: string }).taker_nonce } });
    await refused(again, 'dutch_request.taker_nonce', /already used/);
    await request(app).post('/api/quote').set('Idempotency-Key', randomUUID()).send(again).expect(400);
    expect(await tokens()).toEqual(before);
  });

  it('refuses exclusive_ms and exclusive_seconds that disagree, and windows over the operator maximum', async () => {
    await refused(await dutchBody(newWallet(), { body: { exclusive_ms: 1000, exclusive_seconds: 2 } }), 'exclusive_seconds', /disagrees/);
    await request(app)
      .post('/api/quote')
      .send(await dutchBody(newWallet(), { body: { exclusive_ms: 2000, exclusive_seconds: 2 } }))
      .expect(201);
    await refused(await dutchBody(newWallet(), { body: { exclusive_ms: 30_001 } }), 'exclusive_ms', /0 to 30000/);
    await new NetworksService(env.db).setSetting('dutch_limits', { max_exclusive_ms: 500, default_exclusive_ms: 500 });
    try {
      await refused(await dutchBody(newWallet(), { body: { exclusive_ms: 1000 } }), 'exclusive_ms', /0 to 500/);
      await refused(await dutchBody(newWallet(), { body: { exclusive_ms: undefined, exclusive_seconds: 1 } }), 'exclusive_seconds', /0 to 0/);
    } finally {
      await new NetworksService(env.db).setSetting('dutch_limits', {});
    }
  });

  it('refuses an unknown chain, an unknown pair, unknown fields and missing ones', async () => {
    await refused(await dutchBody(newWallet(), { chainId: 999 }), 'chain_id', /unknown chain/);
    await refused(await dutchBody(newWallet(), { pair: randomAddress() }), 'dutch_request.intents[0].pair6909_contract', /not a known pair/);
    await refused(await dutchBody(newWallet(), { body: { polarity: 'b_is_buy' } }), 'polarity', /not a field/);
    const body = await dutchBody(newWallet());
    delete body.taker_signature;
    await refused(body, 'taker_signature', /required/);
  });
});
