import type { Express } from 'express';
import { orderIntentFromJson, orderIntentHash } from '../../../shared/protocol';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { indexFixturePair, orderBody } from '../../support/orders';
import { FIXTURE_PAIR, FIXTURE_USDC } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

const MOTHERSHIP = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('orders: POST /api/orders, GET /api/orders(/:id), POST /api/orders/:id/cancel', () => {
  let env: TestEnv;
  let app: Express;
  const owner = newWallet();
  const other = newWallet();
  let ownerToken: string;
  let otherToken: string;

  beforeAll(async () => {
    env = await createTestEnv();
    ({ app } = buildApp(env));
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    await indexFixturePair(env.db);
    ownerToken = await signIn(app, owner);
    otherToken = await signIn(app, other);
  });
  afterAll(() => env.close());

  const create = (body: unknown, token?: string) => {
    const r = request(app).post('/api/orders');
    return (token ? r.set(bearer(token)) : r).send(body as object);
  };

  it('records an order without a bearer for destination.from, echoing it with its intent hash', async () => {
    const body = orderBody(owner.address.toLowerCase());
    const res = await create(body).expect(201);
    expect(res.body).toMatchObject({ owner_address: owner.address, state: 'open', amount: body.amount, on_chain: null });
    expect(res.body.destination).toEqual({ ...body.destination, from: owner.address });
    expect(res.body.data).toEqual(body.data);
    expect(res.body.intent_hash).toBe(orderIntentHash(orderIntentFromJson(res.body)));
    expect(res.body.expires_at).toBe(new Date(body.data.intentExpiry * 1000).toISOString());
    const got = await request(app).get(`/api/orders/${res.body.id}`).expect(200);
    expect(got.body).toEqual(res.body);
  });

  describe('number forms: rewardLimits.* and premiumStart/End echo as the request sent them (docs/ORDERS.md)', () => {
    const withForms = (
      rewardLimits: Record<string, string | number>,
      premiums: { premiumStart: string | number; premiumEnd: string | number },
      nonce: string,
    ) => {
      const body = orderBody(owner.address);
      return {
        ...body,
        destination: { ...body.destination, nonce: { ...body.destination.nonce, nonce } },
        data: { ...body.data, rewardLimits, decayPremium: { ...body.data.decayPremium, ...premiums } },
      };
    };

    it('a JSON integer stays an integer and a string stays a string, field by field, in the answer and when read back', async () => {
      const body = withForms(
        { fillerRewardMaxPerMintedUnit: 500, fillerRewardMinPerMintedUnit: '5' },
        { premiumStart: '125000000', premiumEnd: 100000000 },
        '7001',
      );
      const res = await create(body).expect(201);
      expect(res.body.data.rewardLimits).toEqual({ fillerRewardMaxPerMintedUnit: 500, fillerRewardMinPerMintedUnit: '5' });
      expect(res.body.data.decayPremium).toEqual({
        premiumStart: '125000000',
        premiumEnd: 100000000,
        decayRateBpsPerSecond: body.data.decayPremium.decayRateBpsPerSecond,
      });
      expect(res.body.data).toEqual(body.data);
      const got = await request(app).get(`/api/orders/${res.body.id}`).expect(200);
      expect(got.body.data).toEqual(body.data);
      // The form is not the value: the intent hash is that of the same uint256s.
      expect(res.body.intent_hash).toBe(orderIntentHash(orderIntentFromJson(res.body)));
    });

    it('a number past 2^53 sent as a decimal string comes back as that exact string', async () => {
      const big = '9007199254740993'; // 2^53 + 1: a JSON number would round it
      const huge = (1n << 255n).toString();
      const body = withForms({ fillerRewardMaxPerMintedUnit: huge, fillerRewardMinPerMintedUnit: big }, { premiumStart: big, premiumEnd: 1 }, '7002');
      const res = await create(body).expect(201);
      expect(res.body.data.rewardLimits).toEqual({ fillerRewardMaxPerMintedUnit: huge, fillerRewardMinPerMintedUnit: big });
      expect(res.body.data.decayPremium).toMatchObject({ premiumStart: big, premiumEnd: 1 });
      const got = await request(app).get(`/api/orders/${res.body.id}`).expect(200);
      expect(got.body.data.decayPremium.premiumStart).toBe(big);
      expect(orderIntentFromJson(got.body).premiumStart).toBe(2n ** 53n + 1n);
    });

    it('refuses a JSON integer past 2^53 at its field, and records nothing', async () => {
      const [{ n: before }] = await env.db.query('SELECT count(*)::int AS n FROM orders');
      const body = withForms({ fillerRewardMaxPerMintedUnit: 2 ** 53 + 2, fillerRewardMinPerMintedUnit: 0 }, { premiumStart: 1, premiumEnd: 1 }, '7003');
      const res = await create(body).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', error: expect.stringMatching(/integers past 2\^53 must be decimal strings/) });
      expect(res.body.details).toEqual([
        { path: 'data.rewardLimits.fillerRewardMaxPerMintedUnit', message: expect.stringMatching(/integers past 2\^53 must be decimal strings/) },
      ]);
      const [{ n: after }] = await env.db.query('SELECT count(*)::int AS n FROM orders');
      expect(after).toBe(before);
    });

    it('the same intent recorded again in other forms answers the first record, in its forms', async () => {
      const first = await create(
        withForms({ fillerRewardMaxPerMintedUnit: 900, fillerRewardMinPerMintedUnit: 9 }, { premiumStart: 77, premiumEnd: 66 }, '7004'),
      ).expect(201);
      const again = await create(
        withForms({ fillerRewardMaxPerMintedUnit: '900', fillerRewardMinPerMintedUnit: '9' }, { premiumStart: '77', premiumEnd: '66' }, '7004'),
      ).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.id).toBe(first.body.id);
      expect(again.body.data).toEqual(first.body.data);
    });
  });

  it('with orderOnExpiry 1 the order rests until the option expires; the mothership is a valid destination', async () => {
    const body = orderBody(owner.address, { orderOnExpiry: 1, to: MOTHERSHIP });
    const res = await create(body).expect(201);
    expect(res.body.expires_at).toBe(new Date(body.data.pairKey.expiryTimestamp * 1000).toISOString());
  });

  it('with a bearer, destination.from must be its wallet', async () => {
    await create(orderBody(owner.address), ownerToken).expect(201);
    const res = await create(orderBody(owner.address), otherToken).expect(403);
    expect(res.body).toMatchObject({
      code: 'order_owner_mismatch',
      error: `destination.from ${owner.address} is not the authenticated wallet ${other.address}`,
    });
  });

  it('refuses an invalid bearer rather than recording without one', async () => {
    const res = await create(orderBody(owner.address), 'not-a-token').expect(401);
    expect(res.body.code).toBe('invalid_bearer');
  });

  it('records another intent with the same (prefix, nonce): recording reserves no nonce', async () => {
    const body = orderBody(owner.address);
    const first = await create(body).expect(201);
    const other = { ...body, amount: '2000000000000000000' };
    const second = await create(other).expect(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.destination.nonce).toEqual(first.body.destination.nonce);
    expect(second.body.intent_hash).not.toBe(first.body.intent_hash);
  });

  it("the very same intent recorded again answers the first record (201, Idempotent-Replayed: true, as the spec's 201); the owner's own session confirms it", async () => {
    const body = orderBody(owner.address);
    const first = await create(body).expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.body).toMatchObject({ placement: 'unconfirmed', confirmed: false });
    const again = await create(body).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.placement).toBe('unconfirmed');
    const byOwner = await create(body, ownerToken).expect(201);
    expect(byOwner.body).toMatchObject({ id: first.body.id, placement: 'recorded_by_owner', confirmed: true });
    expect((await env.db.query(`SELECT count(*)::int AS n FROM orders WHERE intent_hash = $1`, [first.body.intent_hash]))[0].n).toBe(1);
  });

  it('creates sent together commit together: each gets its own order, and of an intent sent twice at once one is recorded and the other answers it', async () => {
    const bodies = Array.from({ length: 16 }, () => orderBody(owner.address));
    const twice = orderBody(owner.address);
    const sent = [...bodies.slice(0, 8), twice, twice, ...bodies.slice(8)];
    const res = await Promise.all(sent.map((b) => create(b)));
    expect(res.every((r) => r.status === 201)).toBe(true);
    const fresh = (r: (typeof res)[number]) => r.headers['idempotent-replayed'] === undefined;
    expect(res.filter(fresh)).toHaveLength(17);
    const repeated = res.filter((r) => !fresh(r));
    expect(repeated).toHaveLength(1);
    expect(repeated[0].body.id).toBe([res[8], res[9]].find(fresh)!.body.id);
    for (const [i, r] of res.entries()) {
      if (!fresh(r)) continue;
      expect(r.body.destination.nonce).toEqual(sent[i].destination.nonce);
      const got = await request(app).get(`/api/orders/${r.body.id}`).expect(200);
      expect(got.body).toEqual(r.body);
    }
  });

  const now = Math.floor(Date.now() / 1000);
  const YEAR = 366 * 86400;
  type Body = ReturnType<typeof orderBody>;
  const edits: [string, (b: Body) => unknown, string, string][] = [
    ['chain_id unknown', (b) => ({ ...b, chain_id: 999 }), 'chain_id', 'unknown chain 999'],
    ['chain_id not an integer', (b) => ({ ...b, chain_id: '31337' }), 'chain_id', 'chain id'],
    ['amount zero', (b) => ({ ...b, amount: '0' }), 'amount', 'between 1 and'],
    ['amount past uint256', (b) => ({ ...b, amount: (1n << 256n).toString() }), 'amount', 'uint256'],
    ['amount as an unsafe JSON number', (b) => ({ ...b, amount: 2 ** 60 }), 'amount', 'decimal strings'],
    ['amount missing', (b) => ({ ...b, amount: undefined }), 'amount', 'is required'],
    ['unknown top-level field', (b) => ({ ...b, extra: 1 }), 'extra', 'is not a field of an order'],
    ['destination.from not an address', (b) => ({ ...b, destination: { ...b.destination, from: '0x12' } }), 'destination.from', 'address'],
    [
      'destination.to another contract',
      (b) => ({ ...b, destination: { ...b.destination, to: randomAddress() } }),
      'destination.to',
      "must be the order's CLOB",
    ],
    [
      'destination.nonce.prefix negative',
      (b) => ({ ...b, destination: { ...b.destination, nonce: { prefix: -1, nonce: '1' } } }),
      'destination.nonce.prefix',
      'integer from 0',
    ],
    [
      'destination.nonce.nonce not decimal',
      (b) => ({ ...b, destination: { ...b.destination, nonce: { prefix: 1, nonce: '0x1' } } }),
      'destination.nonce.nonce',
      'decimal integer',
    ],
    ['unknown destination field', (b) => ({ ...b, destination: { ...b.destination, via: 1 } }), 'destination.via', 'is not a field of destination'],
    [
      'options6909Contract a token',
      (b) => ({ ...b, data: { ...b.data, options6909Contract: FIXTURE_USDC } }),
      'data.options6909Contract',
      'is the USDC token, not a pair',
    ],
    [
      'options6909Contract unknown',
      (b) => ({ ...b, data: { ...b.data, options6909Contract: randomAddress() } }),
      'data.options6909Contract',
      'is not a known pair',
    ],
    [
      'reward min above max',
      (b) => ({ ...b, data: { ...b.data, rewardLimits: { fillerRewardMaxPerMintedUnit: '5', fillerRewardMinPerMintedUnit: '6' } } }),
      'data.rewardLimits.fillerRewardMinPerMintedUnit',
      'must not exceed',
    ],
    [
      'reward max negative',
      (b) => ({ ...b, data: { ...b.data, rewardLimits: { fillerRewardMaxPerMintedUnit: '-5', fillerRewardMinPerMintedUnit: '0' } } }),
      'data.rewardLimits.fillerRewardMaxPerMintedUnit',
      'without sign',
    ],
    ['optionType 2', (b) => ({ ...b, data: { ...b.data, pairKey: { ...b.data.pairKey, optionType: 2 } } }), 'data.pairKey.optionType', '0 (call) or 1 (put)'],
    [
      'series expired',
      (b) => ({ ...b, data: { ...b.data, pairKey: { ...b.data.pairKey, expiryTimestamp: now - 10 } } }),
      'data.pairKey.expiryTimestamp',
      'must be in the future',
    ],
    [
      'expiry past uint40',
      (b) => ({ ...b, data: { ...b.data, pairKey: { ...b.data.pairKey, expiryTimestamp: 2 ** 41 } } }),
      'data.pairKey.expiryTimestamp',
      'unix seconds',
    ],
    [
      'exercise start neither American nor European',
      (b) => ({ ...b, data: { ...b.data, pairKey: { ...b.data.pairKey, startExecutionTimeStamp: now + 5 } } }),
      'data.pairKey.startExecutionTimeStamp',
      'American',
    ],
    [
      'premium decay rate above bound',
      (b) => ({ ...b, data: { ...b.data, decayPremium: { ...b.data.decayPremium, decayRateBpsPerSecond: 10_001 } } }),
      'data.decayPremium.decayRateBpsPerSecond',
      '0 to 10000',
    ],
    [
      'premiumStart not an integer',
      (b) => ({ ...b, data: { ...b.data, decayPremium: { ...b.data.decayPremium, premiumStart: '1.5' } } }),
      'data.decayPremium.premiumStart',
      'decimal integer',
    ],
    [
      'strike decay rate negative',
      (b) => ({ ...b, data: { ...b.data, decayStrike: { ...b.data.decayStrike, decayRateBpsPerSecond: -1 } } }),
      'data.decayStrike.decayRateBpsPerSecond',
      '0 to 10000',
    ],
    [
      'strikeStart past uint144',
      (b) => ({ ...b, data: { ...b.data, decayStrike: { ...b.data.decayStrike, strikeStart: (1n << 144n).toString() } } }),
      'data.decayStrike.strikeStart',
      'uint144',
    ],
    [
      'strikeEnd zero',
      (b) => ({ ...b, data: { ...b.data, decayStrike: { ...b.data.decayStrike, strikeEnd: '0' } } }),
      'data.decayStrike.strikeEnd',
      'between 1 and',
    ],
    [
      'startMinFill above amount',
      (b) => ({ ...b, data: { ...b.data, decayMinFill: { ...b.data.decayMinFill, startMinFill: '2000000000000000000' } } }),
      'data.decayMinFill.startMinFill',
      'must not exceed amount',
    ],
    [
      'minFill decay rate missing',
      (b) => ({ ...b, data: { ...b.data, decayMinFill: { startMinFill: '1' } } }),
      'data.decayMinFill.decayRatePerSecond',
      'is required',
    ],
    ['buyOrSell 2', (b) => ({ ...b, data: { ...b.data, buyOrSell: 2 } }), 'data.buyOrSell', '0 (buy) or 1 (sell)'],
    [
      'intentStartTime not before intentExpiry',
      (b) => ({ ...b, data: { ...b.data, intentStartTime: b.data.intentExpiry } }),
      'data.intentStartTime',
      'must be before intentExpiry',
    ],
    [
      'intentExpiry past',
      (b) => ({ ...b, data: { ...b.data, intentStartTime: now - 100, intentExpiry: now - 1 } }),
      'data.intentExpiry',
      'must be in the future',
    ],
    [
      'intentExpiry after the option expires',
      (b) => ({ ...b, data: { ...b.data, intentExpiry: b.data.pairKey.expiryTimestamp + 1 } }),
      'data.intentExpiry',
      "must not be after the option's expiry",
    ],
    ['orderOnExpiry 3', (b) => ({ ...b, data: { ...b.data, orderOnExpiry: 3 } }), 'data.orderOnExpiry', '0 (leave the book'],
    ['unknown data field', (b) => ({ ...b, data: { ...b.data, extra: true } }), 'data.extra', 'is not a field of data'],
    [
      'intentExpiry past the horizon',
      (b) => ({ ...b, data: { ...b.data, pairKey: { ...b.data.pairKey, expiryTimestamp: now + 3 * YEAR }, intentExpiry: now + 2 * YEAR } }),
      'data.intentExpiry',
      'ORDER_MAX_HORIZON_SECONDS',
    ],
    [
      'intentStartTime past the horizon',
      (b) => ({ ...b, data: { ...b.data, intentStartTime: now + 2 * YEAR } }),
      'data.intentStartTime',
      'ORDER_MAX_HORIZON_SECONDS',
    ],
    [
      'option expiry past the horizon',
      (b) => ({ ...b, data: { ...b.data, pairKey: { ...b.data.pairKey, expiryTimestamp: now + 2 * YEAR } } }),
      'data.pairKey.expiryTimestamp',
      'ORDER_MAX_HORIZON_SECONDS',
    ],
    [
      'European exercise start past the horizon',
      (b) => ({ ...b, data: { ...b.data, pairKey: { ...b.data.pairKey, startExecutionTimeStamp: now + 2 * YEAR, expiryTimestamp: now + 2 * YEAR } } }),
      'data.pairKey.startExecutionTimeStamp',
      'ORDER_MAX_HORIZON_SECONDS',
    ],
    ['data not an object', (b) => ({ ...b, data: [] }), 'data', 'must be a JSON object'],
  ];

  it.each(edits)('400 naming the field: %s', async (_name, edit, path, message) => {
    const before = await env.db.query(`SELECT count(*)::int AS n FROM orders`);
    const res = await create(edit(orderBody(owner.address))).expect(400);
    expect(res.body.code).toBe('validation_failed');
    const detail = (res.body.details as { path: string; message: string }[]).find((d) => d.path === path);
    expect(detail?.message).toContain(message);
    expect(await env.db.query(`SELECT count(*)::int AS n FROM orders`)).toEqual(before);
  });

  it('names every bad field of one body at once', async () => {
    const b = orderBody(owner.address);
    const res = await create({ ...b, amount: '0', data: { ...b.data, buyOrSell: 9, orderOnExpiry: 9 } }).expect(400);
    expect((res.body.details as { path: string }[]).map((d) => d.path).sort()).toEqual(['amount', 'data.buyOrSell', 'data.orderOnExpiry']);
  });

  it('GET of an unknown or malformed id is 404', async () => {
    expect((await request(app).get('/api/orders/6b1d9f0e-0000-4000-8000-000000000000').expect(404)).body.code).toBe('order_not_found');
    expect((await request(app).get('/api/orders/nope').expect(404)).body.code).toBe('order_not_found');
  });

  describe('list', () => {
    const lister = newWallet();
    const ids: string[] = [];
    beforeAll(async () => {
      const token = await signIn(app, lister);
      for (let i = 0; i < 5; i++) ids.push((await create(orderBody(lister.address), token).expect(201)).body.id);
      // Recorded by someone else: visible by id, never listed.
      await create(orderBody(lister.address)).expect(201);
    });

    it("pages an owner's orders newest first with an opaque cursor, each order once", async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const q: Record<string, string> = { owner: lister.address.toLowerCase(), limit: '2', ...(cursor ? { cursor } : {}) };
        const res = await request(app).get('/api/orders').query(q).expect(200);
        expect(res.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.items.map((o: { id: string }) => o.id));
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(seen).toEqual([...ids].reverse());
    });

    it('filters by state and chain', async () => {
      const open = await request(app).get('/api/orders').query({ owner: lister.address, state: 'open', chain_id: '31337' }).expect(200);
      expect(open.body.items).toHaveLength(5);
      const cancelled = await request(app).get('/api/orders').query({ owner: lister.address, state: 'cancelled' }).expect(200);
      expect(cancelled.body).toEqual({ items: [], next_cursor: null });
      const elsewhere = await request(app).get('/api/orders').query({ owner: lister.address, chain_id: '1' }).expect(200);
      expect(elsewhere.body.items).toEqual([]);
    });

    it.each([
      ['limit above 500', { limit: '501' }, 'limit'],
      ['limit zero', { limit: '0' }, 'limit'],
      ['unknown state', { state: 'done' }, 'state'],
      ['owner not an address', { owner: 'me' }, 'owner'],
      ['chain_id past the chain id column (2^31-1)', { chain_id: '3000000000' }, 'chain_id'],
      ['a cursor it never returned', { cursor: 'garbage' }, 'cursor'],
    ])('400 for %s', async (_name, query, path) => {
      const res = await request(app).get('/api/orders').query(query).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    });
  });

  describe('cancel', () => {
    it('the owner cancels; a second cancel is 409; the order reads cancelled', async () => {
      const id = (await create(orderBody(owner.address)).expect(201)).body.id;
      const res = await request(app).post(`/api/orders/${id}/cancel`).set(bearer(ownerToken)).expect(200);
      expect(res.body).toMatchObject({ id, state: 'cancelled' });
      expect(res.body.closed_at).not.toBeNull();
      const again = await request(app).post(`/api/orders/${id}/cancel`).set(bearer(ownerToken)).expect(409);
      expect(again.body).toMatchObject({ code: 'order_cancelled', error: `order ${id} is cancelled; only an open order can be cancelled` });
    });

    it('someone else may not cancel (403), nobody without a wallet (401), an unknown order is 404', async () => {
      const id = (await create(orderBody(owner.address)).expect(201)).body.id;
      const res = await request(app).post(`/api/orders/${id}/cancel`).set(bearer(otherToken)).expect(403);
      expect(res.body).toMatchObject({
        code: 'not_order_owner',
        error: `order ${id} belongs to ${owner.address}, not to the authenticated wallet ${other.address}`,
      });
      expect((await request(app).post(`/api/orders/${id}/cancel`).expect(401)).body.code).toBe('wallet_session_required');
      await request(app).post('/api/orders/6b1d9f0e-0000-4000-8000-000000000000/cancel').set(bearer(ownerToken)).expect(404);
      expect((await request(app).get(`/api/orders/${id}`).expect(200)).body.state).toBe('open');
    });
  });

  it('the fixture pair is the one orders were recorded on', async () => {
    const res = await request(app).get('/api/orders').query({ owner: owner.address, limit: '1' }).expect(200);
    expect(res.body.items[0].data.options6909Contract).toBe(FIXTURE_PAIR);
  });
});
