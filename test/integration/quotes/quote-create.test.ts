import { encodeAbiParameters, keccak256 } from 'viem';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { FIXTURE_USDC, intents, quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';

describe('POST /api/quote (standard RFQ)', () => {
  let env: TestEnv;
  let app: ReturnType<typeof buildApp>['app'];
  const taker = randomAddress();

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(() => env.close());

  describe.each(STRATEGY_ROWS)('$name', (row) => {
    it.each(['b_is_buy', 'a_is_buy'] as const)('%s: directions, strategy and taker hash per the spec', async (polarity) => {
      const referrer = randomAddress();
      const res = await request(app)
        .post('/api/quote')
        .send(quoteBody(taker, row.legs, { polarity, referrer }))
        .expect(201);
      const expected = polarity === 'b_is_buy' ? row.buy : row.buy.map((d) => 1 - d);
      const { quote, stream_token, topic } = res.body;
      expect(quote.directions).toEqual(expected);
      expect(quote.strategy).toBe(row.strategy);
      expect(quote.state).toBe('open');
      expect(topic).toBe(`rfq_stream:${stream_token}`);
      expect(stream_token).toMatch(/^[A-Za-z0-9_-]{96}$/);
      const recomputed = keccak256(
        encodeAbiParameters(
          [{ type: 'address' }, { type: 'bytes32' }, { type: 'uint8[]' }, { type: 'address' }],
          [taker, quote.taker_salt, expected, referrer],
        ),
      );
      expect(quote.taker_address_hash).toBe(recomputed);
    });
  });

  it('selling a straddle gives [0,0]', async () => {
    const res = await request(app)
      .post('/api/quote')
      .send(quoteBody(taker, STRATEGY_ROWS.find((r) => r.strategy === 'straddle')!.legs, { polarity: 'a_is_buy' }))
      .expect(201);
    expect(res.body.quote.directions).toEqual([0, 0]);
  });

  it('stores the quote and its legs, and answers the poll with the stream token', async () => {
    const res = await request(app).post('/api/quote').send(quoteBody(taker, STRATEGY_ROWS[7].legs)).expect(201);
    const { quote, stream_token } = res.body;
    const poll = await request(app).get(`/api/quote/${quote.id}`).query({ stream_token }).expect(200);
    expect(poll.body.quote).toEqual(quote);
    expect(poll.body.offers).toEqual([]);
    const viaHeader = await request(app).get(`/api/quote/${quote.id}`).set('X-Quote-Stream-Token', stream_token).expect(200);
    expect(viaHeader.body.quote.id).toBe(quote.id);
    expect(poll.headers['cache-control']).toBe('no-store');
  });

  it('poll: missing or wrong token 401, unknown id 404', async () => {
    const { body } = await request(app).post('/api/quote').send(quoteBody(taker, STRATEGY_ROWS[0].legs)).expect(201);
    const missing = await request(app).get(`/api/quote/${body.quote.id}`).expect(401);
    expect(missing.body.code).toBe('stream_token_required');
    const wrong = await request(app)
      .get(`/api/quote/${body.quote.id}`)
      .query({ stream_token: 'x'.repeat(43) })
      .expect(401);
    expect(wrong.body.error).toBe('invalid stream token for this quote');
    const other = await request(app).post('/api/quote').send(quoteBody(taker, STRATEGY_ROWS[0].legs)).expect(201);
    await request(app).get(`/api/quote/${body.quote.id}`).query({ stream_token: other.body.stream_token }).expect(401);
    await request(app).get('/api/quote/6b1f5bf2-86a4-4b5e-9f43-3f0e0f4e0c11').query({ stream_token: body.stream_token }).expect(404);
    await request(app).get('/api/quote/not-a-uuid').query({ stream_token: body.stream_token }).expect(404);
  });

  describe('validation', () => {
    const send = (body: unknown) =>
      request(app)
        .post('/api/quote')
        .send(body as object);
    const paths = (res: request.Response) => (res.body.details ?? []).map((d: { path: string }) => d.path).sort();

    it('names every bad field at once and stores nothing', async () => {
      const before = await env.db.query('SELECT count(*)::int AS n FROM quotes');
      const res = await send({
        chain_id: 'one',
        taker_address: '0x123',
        polarity: 'long',
        referrer: 'nobody',
        expires_in: 0,
        offer_formats: 'fancy',
        intents: [
          { pair6909_contract: 'x', option_type: 'straddle', structure: 'c', start_exercise_timestamp: 5, expiry_timestamp: 1, strike_wad: '-1', amount: '0' },
        ],
        colour: 'blue',
      }).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(paths(res)).toEqual(
        [
          'chain_id',
          'colour',
          'expires_in',
          'intents[0].amount',
          'intents[0].expiry_timestamp',
          'intents[0].option_type',
          'intents[0].pair6909_contract',
          'intents[0].start_exercise_timestamp',
          'intents[0].strike_wad',
          'intents[0].structure',
          'offer_formats',
          'polarity',
          'referrer',
          'taker_address',
        ].sort(),
      );
      const after = await env.db.query('SELECT count(*)::int AS n FROM quotes');
      expect(after[0].n).toBe(before[0].n);
    });

    it('requires the fields the spec requires', async () => {
      const res = await send({}).expect(400);
      expect(paths(res)).toEqual(['chain_id', 'expires_in', 'intents', 'polarity', 'taker_address']);
      for (const d of res.body.details) expect(d.message).toBe('is required');
    });

    it('expires_in is required: a create without it is 400 naming the field and stores nothing', async () => {
      const before = await env.db.query('SELECT count(*)::int AS n FROM quotes');
      const { expires_in: _omitted, ...body } = quoteBody(taker, STRATEGY_ROWS[0].legs);
      const res = await send(body).expect(400);
      expect(res.body).toEqual({
        error: 'invalid request: expires_in: is required',
        code: 'validation_failed',
        details: [{ path: 'expires_in', message: 'is required' }],
        request_id: expect.any(String),
      });
      expect(await send({ ...body, expires_in: null }).expect(400)).toMatchObject({ body: { details: [{ path: 'expires_in', message: 'is required' }] } });
      const after = await env.db.query('SELECT count(*)::int AS n FROM quotes');
      expect(after[0].n).toBe(before[0].n);
    });

    it('refuses a non-object body', async () => {
      const res = await request(app).post('/api/quote').set('Content-Type', 'application/json').send('[1,2]').expect(400);
      expect(paths(res)).toEqual(['(body)']);
    });

    it('strike_wad must fit uint144 and amount uint256', async () => {
      const legs = intents([{ type: 'call', structure: 0, strike: 1n }]);
      legs[0].strike_wad = (1n << 144n).toString();
      legs[0].amount = (1n << 256n).toString();
      const res = await send(quoteBody(taker, [], { intents: legs })).expect(400);
      expect(paths(res)).toEqual(['intents[0].amount', 'intents[0].strike_wad']);
    });

    it('start_exercise_timestamp must be 0 or the expiry, naming the rule', async () => {
      const legs = intents([{ type: 'call', structure: 0, strike: 3000n }]);
      legs[0].start_exercise_timestamp = legs[0].expiry_timestamp - 10;
      const res = await send(quoteBody(taker, [], { intents: legs })).expect(400);
      expect(res.body.details).toEqual([{ path: 'intents[0].start_exercise_timestamp', message: expect.stringMatching(/0 \(American.*European/) }]);
    });

    it('a European quote (start = expiry) is accepted', async () => {
      const body = quoteBody(taker, [], { intents: intents([{ type: 'put', structure: 0, strike: 2000n }], { european: true }) });
      await send(body).expect(201);
    });

    it('legs must share one pair and one expiry', async () => {
      const a = intents([{ type: 'call', structure: 0, strike: 3000n }]);
      const b = intents([{ type: 'call', structure: 1, strike: 3500n }], { pair: randomAddress(), expiry: a[0].expiry_timestamp + 60 });
      const res = await send(quoteBody(taker, [], { intents: [...a, ...b] })).expect(400);
      expect(paths(res)).toEqual(['intents[1].expiry_timestamp', 'intents[1].pair6909_contract']);
    });

    it('expiry must be in the future and the window must end before it', async () => {
      const past = intents([{ type: 'call', structure: 0, strike: 3000n }], { expiry: Math.floor(Date.now() / 1000) - 5 });
      expect(paths(await send(quoteBody(taker, [], { intents: past })).expect(400))).toEqual(['intents[0].expiry_timestamp']);
      const soon = intents([{ type: 'call', structure: 0, strike: 3000n }], { expiry: Math.floor(Date.now() / 1000) + 30 });
      const res = await send(quoteBody(taker, [], { intents: soon, expires_in: 120 })).expect(400);
      expect(paths(res)).toEqual(['expires_in']);
    });

    it('expires_in above the configured maximum is refused', async () => {
      const res = await send(quoteBody(taker, STRATEGY_ROWS[0].legs, { expires_in: 301 })).expect(400);
      expect(res.body.details).toEqual([{ path: 'expires_in', message: 'must be an integer number of seconds from 1 to 300' }]);
    });

    it('an unknown chain is refused', async () => {
      const res = await send(quoteBody(taker, STRATEGY_ROWS[0].legs, { chain_id: 999 })).expect(400);
      expect(res.body.details).toEqual([{ path: 'chain_id', message: 'unknown chain 999: see GET /api/networks' }]);
    });

    it('a token address instead of a pair is refused with an error that says so', async () => {
      const body = quoteBody(taker, [], { intents: intents([{ type: 'call', structure: 0, strike: 3000n }], { pair: FIXTURE_USDC }) });
      const res = await send(body).expect(400);
      expect(res.body.details[0].path).toBe('intents[0].pair6909_contract');
      expect(res.body.details[0].message).toMatch(/is the USDC token, not a pair/);
    });

    it('an unknown pair is refused', async () => {
      const body = quoteBody(taker, [], { intents: intents([{ type: 'call', structure: 0, strike: 3000n }], { pair: randomAddress() }) });
      const res = await send(body).expect(400);
      expect(res.body.details[0].message).toMatch(/is not a known pair \(CLOB\) contract on chain 31337/);
    });

    it('dutch_only selects the Dutch request: a standard body is refused naming the Dutch fields', async () => {
      const res = await send(quoteBody(taker, STRATEGY_ROWS[0].legs, { offer_formats: 'dutch_only' })).expect(400);
      const paths = (res.body.details as { path: string }[]).map((d) => d.path);
      expect(paths).toEqual(expect.arrayContaining(['directions', 'taker_signature', 'dutch_request', 'polarity', 'referrer']));
    });

    it('legByLegOnly is ignored: stored as package_only', async () => {
      const res = await send(quoteBody(taker, STRATEGY_ROWS[0].legs, { offer_formats: 'legByLegOnly' })).expect(201);
      expect(res.body.quote.offer_format).toBe('package_only');
    });
  });

  describe('Idempotency-Key', () => {
    it('a retried create returns the first response and creates one quote', async () => {
      const body = quoteBody(taker, STRATEGY_ROWS[2].legs);
      const first = await request(app).post('/api/quote').set('Idempotency-Key', 'retry-me-1-0000000000000000000000000').send(body).expect(201);
      const again = await request(app).post('/api/quote').set('Idempotency-Key', 'retry-me-1-0000000000000000000000000').send(body).expect(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers['idempotent-replayed']).toBe('true');
      const rows = await env.db.query('SELECT count(*)::int AS n FROM quotes WHERE id = $1', [first.body.quote.id]);
      expect(rows[0].n).toBe(1);
    });

    it('the same key with another body is 409', async () => {
      await request(app)
        .post('/api/quote')
        .set('Idempotency-Key', 'retry-me-2-0000000000000000000000000')
        .send(quoteBody(taker, STRATEGY_ROWS[0].legs))
        .expect(201);
      const res = await request(app)
        .post('/api/quote')
        .set('Idempotency-Key', 'retry-me-2-0000000000000000000000000')
        .send(quoteBody(taker, STRATEGY_ROWS[1].legs))
        .expect(409);
      expect(res.body.code).toBe('idempotency_key_reused');
    });

    it('concurrent creates with one key make one quote', async () => {
      const body = quoteBody(taker, STRATEGY_ROWS[3].legs);
      const results = await Promise.all(
        Array.from({ length: 6 }, () => request(app).post('/api/quote').set('Idempotency-Key', 'race-1-00000000000000000000000000000').send(body)),
      );
      const ids = new Set(results.map((r) => r.body.quote?.id));
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
      expect(ids.size).toBe(1);
    });

    it('a malformed key is a 400 naming the header', async () => {
      const res = await request(app).post('/api/quote').set('Idempotency-Key', 'x'.repeat(300)).send(quoteBody(taker, STRATEGY_ROWS[0].legs)).expect(400);
      expect(res.body.details).toEqual([{ path: 'Idempotency-Key', message: 'must be 1-255 printable ASCII characters' }]);
    });
  });
});
