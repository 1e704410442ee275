import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import { zeroAddress } from 'viem';
import { createApp } from '../../../api/app';
import type { ApiContext } from '../../../api/context';
import { fillAuthorityAbi } from '../../../shared/chain/abis';
import { topics } from '../../../shared/events';
import type { Config } from '../../../shared/platform/config';
import { closeQuote, hashStreamToken } from '../../../shared/quotes';
import { NetworksService } from '../../../shared/networks';
import { chainDutchBody, dutchBody, FIXTURE_MOTHERSHIP, LONG_COMPETE_MS, recordFixturePair } from '../../support/dutch';
import { assertNoTakerIdentity, eventually, topicEvents } from '../../support/events';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { signedOffer, type QuoteLike } from '../../support/offers';
import { FIXTURE_USDC, quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signedKeyAdd, signIn } from '../../support/wallets';
import { startWorkers, type Workers } from '../../support/workers';
import { openHarness, type Harness } from '../indexer/harness';

type Kind = 'package_offer' | 'dutch_bid';
type Body = Record<string, unknown> | string;

const realPath = (id: string, kind: Kind) => (kind === 'package_offer' ? `/api/quote/${id}` : `/api/quote/${id}/offer`);

/** Sends a body as JSON; a string is sent as it is, as JSON that may not parse. */
const sendBody = (test: request.Test, body: Body) => (typeof body === 'string' ? test.set('Content-Type', 'application/json').send(body) : test.send(body));

const unixNow = () => Math.floor(Date.now() / 1000);

/**
 * An answer with each "now is <unix seconds>" of its messages checked to lie within the seconds
 * the call took, [from, to], and written "now is <now>": the dry-run and the real call may fall in
 * different seconds, and each names its own.
 */
function withNowChecked(answer: unknown, from: number, to: number): unknown {
  return JSON.parse(
    JSON.stringify(answer).replace(/now is (\d+)/g, (_text, n: string) => {
      expect(Number(n)).toBeGreaterThanOrEqual(from);
      expect(Number(n)).toBeLessThanOrEqual(to);
      return 'now is <now>';
    }),
  ) as unknown;
}

/**
 * Posts `body` to the dry-run and then to the real route, and holds the dry-run's verdict to the
 * real answer: the same status and the same error body (the request id aside, each request has its
 * own; a "now is" in a message, each call's own second). The dry-run goes first, so the real route
 * sees what the dry-run left behind.
 */
async function sameRefusal(app: Express, id: string, kind: Kind, token: string, body: Body, seen: unknown[]): Promise<Record<string, unknown>> {
  const dryFrom = unixNow();
  const dry = await sendBody(request(app).post(`/api/quote/${id}/dry-run`).set(bearer(token)), body).expect(200);
  const dryTo = unixNow();
  seen.push(dry.body);
  const realFrom = unixNow();
  const real = await sendBody(request(app).post(realPath(id, kind)).set(bearer(token)), body);
  const realTo = unixNow();
  expect(real.status).not.toBe(201);
  expect(withNowChecked(dry.body, dryFrom, dryTo)).toEqual({
    dry_run: true,
    quote_id: id,
    kind,
    would: 'refuse',
    status: real.status,
    error: withNowChecked({ ...real.body, request_id: dry.headers['x-request-id'] }, realFrom, realTo),
  });
  return real.body as Record<string, unknown>;
}

describe('offer dry-run: POST /api/quote/:id/dry-run', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let workers: Workers;
  let networks: NetworksService;
  const maker = newWallet();
  const bot = newWallet();
  const freemium = newWallet();
  const faded = newWallet();
  let makerToken: string;
  let botSecret: string;
  let freemiumToken: string;
  let fadedToken: string;
  let fadedOrg: string;
  const taker = randomAddress();
  const referrer = randomAddress();
  const dutchTaker = newWallet();
  /** Every dry-run answer a maker got: none may name the taker or its referrer. */
  const seen: unknown[] = [];
  let prefixes = 0;

  const sign = (quote: QuoteLike, signer = maker, opts: Record<string, unknown> = {}) =>
    signedOffer(quote, signer, { mothership: FIXTURE_MOTHERSHIP, premiumToken: FIXTURE_USDC, ...opts });
  const dryRun = (id: string, token: string, body: Body, on: Express = app) => sendBody(request(on).post(`/api/quote/${id}/dry-run`).set(bearer(token)), body);
  const accepted = (id: string, kind: Kind) => ({ dry_run: true, quote_id: id, kind, would: 'accept', status: 201, error: null });
  const count = async (sql: string, id: string) => Number((await env.db.query(sql, [id]))[0].n);
  const offersOn = (id: string) => count(`SELECT count(*)::int AS n FROM quote_offers WHERE quote_id = $1`, id);
  const bidsOn = (id: string) => count(`SELECT count(*)::int AS n FROM dutch_bids WHERE quote_id = $1`, id);

  async function newQuote(extra: Record<string, unknown> = {}, chainId = 31337) {
    const res = await request(app)
      .post('/api/quote')
      .send(quoteBody(taker, STRATEGY_ROWS[7].legs, { referrer, chain_id: chainId, ...extra }))
      .expect(201);
    return res.body as { quote: QuoteLike & { taker_salt: string }; stream_token: string };
  }

  async function newAuction() {
    const res = await request(app)
      .post('/api/quote')
      .send(await dutchBody(dutchTaker, { body: { compete_ms: LONG_COMPETE_MS } }))
      .expect(201);
    return { id: res.body.quote.id as string, stream: topics.rfqStream(hashStreamToken(res.body.stream_token)) };
  }

  /** A replica with these limits and Redis buckets of its own, as the write-limits tests build them. */
  function replica(overrides: Partial<Config>): Express {
    const config = { ...env.config, TRUST_PROXY_HOPS: 1, REDIS_PREFIX: `${env.config.REDIS_PREFIX}dry${++prefixes}:`, ...overrides };
    return createApp({ ...env, config: Object.freeze(config) }).app;
  }

  beforeAll(async () => {
    env = await createTestEnv();
    ({ app, ctx } = buildApp(env));
    networks = new NetworksService(env.db);
    await networks.upsertNetwork(networkFile(31337));
    // A chain whose registry entry names no mothership: offers on it cannot be verified (503).
    const { mothership: _none, ...contracts } = networkFile(31338).contracts;
    await networks.upsertNetwork(networkFile(31338, { contracts }));
    await networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '0', fill_bond_amount: '0' } });
    await recordFixturePair(env.db);
    const owner = newWallet();
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Dry-run makers', owner: owner.address });
    await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: maker.address, role: 'member' });
    fadedOrg = (await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Faded makers', owner: faded.address })).id;
    makerToken = await signIn(app, maker);
    freemiumToken = await signIn(app, freemium);
    fadedToken = await signIn(app, faded);
    const key = await request(app)
      .post('/api/maker/keys')
      .set(bearer(await signIn(app, owner)))
      .send(await signedKeyAdd(owner, bot, { organization: org.id, name: 'dry-run bot' }))
      .expect(201);
    botSecret = key.body.secret;
    workers = startWorkers(env);
  });
  afterAll(async () => {
    await workers.close(true);
    await env.close();
  });

  describe('a package offer (standard quote)', () => {
    it('accepts what the real route accepts without storing, publishing or spending the nonce; the real offer then succeeds', async () => {
      const q = await newQuote();
      const body = await sign(q.quote);
      for (let i = 0; i < 2; i++) {
        const dry = await dryRun(q.quote.id, makerToken, body).expect(200);
        seen.push(dry.body);
        expect(dry.body).toEqual(accepted(q.quote.id, 'package_offer'));
      }
      expect(await offersOn(q.quote.id)).toBe(0);

      // The nonce is still unused: the real route takes the very body, and its offer is the only one announced.
      const real = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(body).expect(201);
      const stream = await eventually(
        () => topicEvents(env, topics.rfqStream(hashStreamToken(q.stream_token))),
        (e) => e.some((x) => x.event === 'rfq_offer'),
      );
      const mine = await eventually(
        () => topicEvents(env, topics.rfqMaker(maker.address)),
        (e) => e.some((x) => x.payload.offer_id === real.body.offer.offer_id),
      );
      expect(stream.filter((e) => e.event === 'rfq_offer').map((e) => e.payload.offer_id)).toEqual([real.body.offer.offer_id]);
      expect(mine.filter((e) => e.payload.quote_id === q.quote.id).map((e) => e.payload.offer_id)).toEqual([real.body.offer.offer_id]);
      expect(await offersOn(q.quote.id)).toBe(1);

      // Now the nonce is spent: the dry-run says so, as the real route does.
      const again = await sameRefusal(app, q.quote.id, 'package_offer', makerToken, body, seen);
      expect(again).toMatchObject({ code: 'nonce_used', details: [{ path: 'nonce', message: expect.any(String) }] });
      expect(await offersOn(q.quote.id)).toBe(1);
    });

    it("a maker API key dry-runs as its bot wallet, and a body signed for another maker is that maker's mismatch", async () => {
      const q = await newQuote();
      const dry = await dryRun(q.quote.id, botSecret, await sign(q.quote, bot)).expect(200);
      seen.push(dry.body);
      expect(dry.body).toEqual(accepted(q.quote.id, 'package_offer'));
      const refused = await sameRefusal(app, q.quote.id, 'package_offer', makerToken, await sign(q.quote, bot), seen);
      expect(refused).toMatchObject({ code: 'maker_mismatch', details: [{ path: 'maker', message: expect.any(String) }] });
    });

    it('refuses each malformed or mismatched body with the real answer, naming the same field, and stores nothing', async () => {
      const q = await newQuote();
      const other = await newQuote();
      const expiresAt = Math.floor(Date.parse(q.quote.expires_at) / 1000);
      const signedForOther = await sign(other.quote);
      const cases: [string, Body, number, string, string[]][] = [
        ['not JSON', '{"offer_type": "package",', 400, 'invalid_json', []],
        ['not an object', '[1, 2]', 400, 'validation_failed', ['(body)']],
        ['an unknown field', { ...(await sign(q.quote)), extra: 1 }, 400, 'validation_failed', ['extra']],
        ['a deadline in the past', await sign(q.quote, maker, { deadline: Math.floor(Date.now() / 1000) - 60 }), 400, 'validation_failed', ['deadline']],
        ['a deadline past the quote', await sign(q.quote, maker, { deadline: expiresAt + 60 }), 400, 'validation_failed', ['deadline']],
        ['an unregistered premium token', await sign(q.quote, maker, { premiumToken: randomAddress() }), 400, 'validation_failed', ['premium_token']],
        [
          'another quote taker hash',
          { ...(await sign(q.quote)), taker_address_hash: other.quote.taker_address_hash },
          400,
          'validation_failed',
          ['taker_address_hash'],
        ],
        [
          'an altered leg',
          { ...signedForOther, legs: (signedForOther.legs as Record<string, unknown>[]).map((l, i) => (i === 1 ? { ...l, strike_wad: '1' } : l)) },
          400,
          'validation_failed',
          ['legs[1].strike_wad'],
        ],
        ['a field altered after signing', { ...(await sign(q.quote)), package_premium: '1' }, 400, 'validation_failed', ['signature']],
        ['a signature by another wallet', await sign(q.quote, newWallet(), { maker: maker.address }), 400, 'validation_failed', ['signature']],
      ];
      for (const [what, body, status, code, paths] of cases) {
        // An altered leg is checked against the quote it was signed for.
        const id = what === 'an altered leg' ? other.quote.id : q.quote.id;
        const refused = await sameRefusal(app, id, 'package_offer', makerToken, body, seen);
        expect([what, refused.code, (refused.details as { path: string }[] | undefined)?.map((d) => d.path) ?? []]).toEqual([what, code, paths]);
        expect([what, (seen[seen.length - 1] as { status: number }).status]).toEqual([what, status]);
      }
      expect(await offersOn(q.quote.id)).toBe(0);
      expect(await offersOn(other.quote.id)).toBe(0);
    });

    it('refuses an offer on a cancelled, filled or expired quote with its 409', async () => {
      for (const state of ['cancelled', 'filled', 'expired'] as const) {
        const q = await newQuote();
        const body = await sign(q.quote);
        if (state === 'cancelled') expect(await closeQuote(env.db, q.quote.id, state)).not.toBeNull();
        // Filled as the indexer's settlement leaves it; expired as its window's end leaves it before the expiry job runs.
        else if (state === 'filled') await env.db.query(`UPDATE quotes SET state = 'filled', closed_at = now() WHERE id = $1 AND state = 'open'`, [q.quote.id]);
        else await env.db.query(`UPDATE quotes SET expires_at = now() - interval '2 seconds' WHERE id = $1`, [q.quote.id]);
        const refused = await sameRefusal(app, q.quote.id, 'package_offer', makerToken, body, seen);
        expect(refused).toEqual({ error: `quote ${q.quote.id} is ${state}; offers are closed`, code: `quote_${state}`, request_id: expect.any(String) });
        expect(await offersOn(q.quote.id)).toBe(0);
      }
    });

    it('refuses an offer on a chain without a mothership with the 503 the real route answers', async () => {
      const q = await newQuote({}, 31338);
      const refused = await sameRefusal(app, q.quote.id, 'package_offer', makerToken, await sign(q.quote), seen);
      expect(refused).toMatchObject({ code: 'network_unavailable' });
    });
  });

  describe('a Dutch bid (Dutch quote)', () => {
    it('accepts what the real route accepts without storing or announcing a bid; the real bid then succeeds', async () => {
      const a = await newAuction();
      const body = { buy_override_bps: 10, sell_override_bps: 20 };
      const dry = await dryRun(a.id, makerToken, body).expect(200);
      seen.push(dry.body);
      expect(dry.body).toEqual(accepted(a.id, 'dutch_bid'));
      expect(await bidsOn(a.id)).toBe(0);

      const real = await request(app).post(`/api/quote/${a.id}/offer`).set(bearer(makerToken)).send(body).expect(201);
      expect(real.body.bid).toMatchObject({ version: 1, replaced: false });
      // Heard before it is replaced: a version replaced before its announce is never announced.
      const heard = (version: number) =>
        eventually(
          () => topicEvents(env, a.stream),
          (e) => e.some((x) => x.event === 'rfq_offer' && x.payload.version === version),
        );
      await heard(1);
      // A dry-run after it would replace it, as the real route would, and replaces nothing: the next real bid is version 2.
      const replacing = await dryRun(a.id, makerToken, { buy_override_bps: 30, sell_override_bps: 40 }).expect(200);
      seen.push(replacing.body);
      expect(replacing.body).toEqual(accepted(a.id, 'dutch_bid'));
      expect(await env.db.query(`SELECT version FROM dutch_bids WHERE quote_id = $1`, [a.id])).toEqual([{ version: 1 }]);
      await request(app).post(`/api/quote/${a.id}/offer`).set(bearer(makerToken)).send({ buy_override_bps: 50, sell_override_bps: 60 }).expect(201);
      const offers = await heard(2);
      expect(offers.filter((e) => e.event === 'rfq_offer').map((e) => [e.payload.bid_id, e.payload.version])).toEqual([
        [real.body.bid.bid_id, 1],
        [real.body.bid.bid_id, 2],
      ]);
    });

    it('refuses a malformed bid, naming the same fields', async () => {
      const a = await newAuction();
      const cases: [Body, string, string[]][] = [
        ['{"buy_override_bps": 1', 'invalid_json', []],
        [{ buy_override_bps: 5001, sell_override_bps: -1 }, 'validation_failed', ['buy_override_bps', 'sell_override_bps']],
        [{ buy_override_bps: 1.5, sell_override_bps: 1 }, 'validation_failed', ['buy_override_bps']],
        [{ buy_override_bps: 1, sell_override_bps: 1, filler: zeroAddress }, 'validation_failed', ['filler']],
        [{ buy_override_bps: 1, sell_override_bps: 1, side: 'buy' }, 'validation_failed', ['(body)']],
      ];
      for (const [body, code, paths] of cases) {
        const refused = await sameRefusal(app, a.id, 'dutch_bid', makerToken, body, seen);
        const got = ((refused.details as { path: string }[] | undefined) ?? []).map((d) => d.path).sort();
        expect([body, refused.code, got]).toEqual([body, code, paths]);
      }
      expect(await bidsOn(a.id)).toBe(0);
    });

    it('refuses a maker without the fill bond, or on a token without a bond entry, with the 403 and its requirements', async () => {
      const a = await newAuction();
      const bid = { buy_override_bps: 1, sell_override_bps: 1 };
      try {
        await networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '0', fill_bond_amount: '1000' } });
        const short = await sameRefusal(app, a.id, 'dutch_bid', makerToken, bid, seen);
        expect(short).toMatchObject({
          code: 'insufficient_fill_bond',
          fill_bond_requirements: { USDC: { token: FIXTURE_USDC, fill_bond_amount: '1000', maker_bond: '0' } },
        });
        await networks.setSetting('bond_requirements', { WETH: { premium_bond_amount: '0', fill_bond_amount: '0' } });
        expect(await sameRefusal(app, a.id, 'dutch_bid', makerToken, bid, seen)).toMatchObject({ code: 'bond_requirement_missing' });
      } finally {
        await networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '0', fill_bond_amount: '0' } });
      }
      expect(await bidsOn(a.id)).toBe(0);
    });

    it('refuses a maker whose organization faded with maker_faded and when it may bid again', async () => {
      const a = await newAuction();
      const bid = { buy_override_bps: 1, sell_override_bps: 1 };
      const dry = await dryRun(a.id, fadedToken, bid).expect(200);
      seen.push(dry.body);
      expect(dry.body).toEqual(accepted(a.id, 'dutch_bid'));
      // Fades as the indexer records them: the organization's awards whose windows passed unfilled, up to DUTCH_FADE_LIMIT.
      for (let i = 0; i < env.config.DUTCH_FADE_LIMIT; i++) {
        await env.db.query(
          `INSERT INTO dutch_exclusive_outcomes (quote_id, chain_id, winner, organization_id, faded, exclusive_ends_at, decided_block, decided_block_timestamp)
           VALUES ($1, 31337, $2, $3, true, now() - make_interval(mins => $4), 1, 1)`,
          [randomUUID(), faded.address, fadedOrg, i + 1],
        );
      }
      const refused = await sameRefusal(app, a.id, 'dutch_bid', fadedToken, bid, seen);
      expect(refused).toMatchObject({ code: 'maker_faded', blocked_until: expect.any(String) });
      expect(await bidsOn(a.id)).toBe(0);
    });

    it('refuses a bid once the competition is over, or the quote expired or filled, with its 409', async () => {
      const bid = { buy_override_bps: 1, sell_override_bps: 1 };
      const over = await newAuction();
      await env.db.query(`UPDATE quotes SET compete_ends_at = now() WHERE id = $1`, [over.id]);
      expect(await sameRefusal(app, over.id, 'dutch_bid', makerToken, bid, seen)).toMatchObject({ code: 'competition_over' });
      const expired = await newAuction();
      expect(await closeQuote(env.db, expired.id, 'expired')).not.toBeNull();
      expect(await sameRefusal(app, expired.id, 'dutch_bid', makerToken, bid, seen)).toMatchObject({ code: 'quote_expired' });
      const filled = await newAuction();
      await env.db.query(`UPDATE quotes SET state = 'filled', closed_at = now() WHERE id = $1 AND state = 'open'`, [filled.id]);
      expect(await sameRefusal(app, filled.id, 'dutch_bid', makerToken, bid, seen)).toMatchObject({ code: 'quote_filled' });
      for (const q of [over, expired, filled]) expect(await bidsOn(q.id)).toBe(0);
    });
  });

  describe('answered as HTTP errors', () => {
    it('no credential 401, no maker rights 403, an unknown quote 404', async () => {
      const q = await newQuote();
      const body = await sign(q.quote);
      await request(app).post(`/api/quote/${q.quote.id}/dry-run`).send(body).expect(401);
      const forbidden = await dryRun(q.quote.id, freemiumToken, body).expect(403);
      expect(forbidden.body.code).toBe('maker_rights_required');
      for (const id of [randomUUID(), 'not-a-quote']) {
        const missing = await dryRun(id, makerToken, body).expect(404);
        expect(missing.body).toEqual({ error: `quote ${id} not found`, code: 'quote_not_found', request_id: expect.any(String) });
      }
    });

    it('has its own rate-limit budget: dry-runs spend none of the write budget, and over their own they are 429', async () => {
      const limited = replica({ DRY_RUN_RATE_LIMIT_PER_CREDENTIAL: 2, WRITE_RATE_LIMIT_PER_CREDENTIAL: 1 });
      const q = await newQuote();
      const body = await sign(q.quote);
      for (let i = 0; i < 2; i++)
        expect((await dryRun(q.quote.id, makerToken, body, limited).set('X-Forwarded-For', '198.51.100.7').expect(200)).body.would).toBe('accept');
      const over = await dryRun(q.quote.id, makerToken, body, limited).set('X-Forwarded-For', '198.51.100.7').expect(429);
      expect(over.body).toEqual({ error: 'too many requests', code: 'rate_limited', request_id: expect.any(String) });
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // The write budget is whole: the real offer goes through, and only the next write is over it.
      await request(limited).post(`/api/quote/${q.quote.id}`).set('X-Forwarded-For', '198.51.100.7').set(bearer(makerToken)).send(body).expect(201);
      const next = await request(limited)
        .post(`/api/quote/${q.quote.id}`)
        .set('X-Forwarded-For', '198.51.100.7')
        .set(bearer(makerToken))
        .send(await sign(q.quote))
        .expect(429);
      expect(next.body.code).toBe('rate_limited');
    });
  });

  it("no dry-run answer carries the taker's address, its referrer or its salt", () => {
    expect(seen.length).toBeGreaterThan(0);
    assertNoTakerIdentity(seen, { taker, referrer });
    assertNoTakerIdentity(seen, { taker: dutchTaker.address });
  });
});

/**
 * The fill authority is asked over the chain's RPC: a real Hardhat node with the devchain's
 * AllowlistFillAuthority (allowing nobody at first, its owner Hardhat account #0).
 */
describe('offer dry-run of a Dutch bid under a fill authority', () => {
  let h: Harness;
  let app: Express;
  let token: string;
  const maker = newWallet();
  const seen: unknown[] = [];

  beforeAll(async () => {
    // The registry is read afresh on every request, so the test can take the RPC away.
    h = await openHarness({ REGISTRY_CACHE_MS: '0' });
    await h.register();
    let ctx: ApiContext;
    ({ app, ctx } = buildApp(h.env));
    await h.networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '0', fill_bond_amount: '0' } });
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Authority makers', owner: newWallet().address });
    await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: maker.address, role: 'member' });
    token = await signIn(app, maker);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('refuses a filler the authority does not allow, accepts one it allows, and answers 503 when the RPC cannot be asked', async () => {
    const created = await request(app)
      .post('/api/quote')
      .send(
        await chainDutchBody(h.chain, h.chain.accounts[2], {
          request: { required_authority: h.chain.addresses.fillAuthority },
          body: { compete_ms: LONG_COMPETE_MS, exclusive_ms: 30_000 },
        }),
      )
      .expect(201);
    const id = created.body.quote.id as string;
    const bid = { buy_override_bps: 5, sell_override_bps: 5 };

    const refused = await sameRefusal(app, id, 'dutch_bid', token, bid, seen);
    expect(refused).toMatchObject({
      code: 'filler_not_allowed',
      details: [{ path: 'filler', message: expect.stringContaining(h.chain.addresses.fillAuthority) }],
    });

    const hash = await h.chain.wallets[0].writeContract({
      address: h.chain.addresses.fillAuthority,
      abi: fillAuthorityAbi,
      functionName: 'allowFiller',
      args: [maker.address],
    });
    await h.chain.publicClient.waitForTransactionReceipt({ hash });
    const dry = await request(app).post(`/api/quote/${id}/dry-run`).set(bearer(token)).send(bid).expect(200);
    seen.push(dry.body);
    expect(dry.body).toEqual({ dry_run: true, quote_id: id, kind: 'dutch_bid', would: 'accept', status: 201, error: null });
    expect(await h.env.db.query(`SELECT 1 FROM dutch_bids WHERE quote_id = $1`, [id])).toHaveLength(0);

    // The RPC goes away (a port nothing listens on): neither route refuses or accepts on a guess.
    try {
      await h.register({ rpc_urls: ['http://127.0.0.1:9'] });
      expect(await sameRefusal(app, id, 'dutch_bid', token, bid, seen)).toMatchObject({ code: 'rpc_unavailable' });
    } finally {
      await h.register();
    }
    await request(app).post(`/api/quote/${id}/offer`).set(bearer(token)).send(bid).expect(201);
    assertNoTakerIdentity(seen, { taker: h.chain.accounts[2].address });
  }, 60_000);
});
