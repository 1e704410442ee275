import type { Express } from 'express';
import { topics } from '../../../shared/events';
import { closeQuote, hashStreamToken } from '../../../shared/quotes';
import { NetworksService } from '../../../shared/networks';
import { assertNoTakerIdentity, eventually, topicEvents } from '../../support/events';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { signedOffer, type QuoteLike } from '../../support/offers';
import { FIXTURE_USDC, quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signedKeyAdd, signIn } from '../../support/wallets';
import { startWorkers, type Workers } from '../../support/workers';

const MOTHERSHIP = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

describe('maker package offers: POST /api/quote/:id', () => {
  let env: TestEnv;
  let app: Express;
  let workers: Workers;
  const maker = newWallet();
  const bot = newWallet();
  const freemium = newWallet();
  let makerToken: string;
  let botSecret: string;
  let freemiumToken: string;
  const taker = randomAddress();
  const referrer = randomAddress();
  const sign = (quote: QuoteLike, signer = maker, opts: Record<string, unknown> = {}) =>
    signedOffer(quote, signer, { mothership: MOTHERSHIP, premiumToken: FIXTURE_USDC, ...opts });

  async function newQuote(extra: Record<string, unknown> = {}) {
    const res = await request(app)
      .post('/api/quote')
      .send(quoteBody(taker, STRATEGY_ROWS[7].legs, { referrer, ...extra }))
      .expect(201);
    return res.body as { quote: QuoteLike & { taker_salt: string }; stream_token: string };
  }

  beforeAll(async () => {
    env = await createTestEnv();
    let ctx;
    ({ app, ctx } = buildApp(env));
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    const owner = newWallet();
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Offer Makers', owner: owner.address });
    await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: maker.address, role: 'member' });
    makerToken = await signIn(app, maker);
    freemiumToken = await signIn(app, freemium);
    const ownerToken = await signIn(app, owner);
    const key = await request(app)
      .post('/api/maker/keys')
      .set(bearer(ownerToken))
      .send(await signedKeyAdd(owner, bot, { organization: org.id, name: 'pricer' }))
      .expect(201);
    botSecret = key.body.secret;
    workers = startWorkers(env);
  });
  afterAll(async () => {
    await workers.close(true);
    await env.close();
  });

  it('a signed-in maker offers; the taker sees it first in the poll and on its stream, the maker on its topic', async () => {
    const q = await newQuote();
    const body = await sign(q.quote, maker, { premium: 900n });
    const res = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(body).expect(201);
    expect(res.body.offer).toMatchObject({ quote_id: q.quote.id, maker: maker.address, package_premium: '900', offer_type: 'package', nonce: body.nonce });

    const cheaper = await sign(q.quote, maker, { premium: 700n });
    await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(cheaper).expect(201);
    const poll = await request(app).get(`/api/quote/${q.quote.id}`).query({ stream_token: q.stream_token }).expect(200);
    expect(poll.body.offers.map((o: { package_premium: string }) => o.package_premium)).toEqual(['700', '900']);

    const stream = await eventually(
      () => topicEvents(env, topics.rfqStream(hashStreamToken(q.stream_token))),
      (e) => e.filter((x) => x.event === 'rfq_offer').length === 2,
    );
    expect(stream.filter((e) => e.event === 'rfq_offer').map((e) => e.payload.package_premium)).toEqual(['900', '700']);
    const mine = await eventually(
      () => topicEvents(env, topics.rfqMaker(maker.address)),
      (e) => e.length >= 2,
    );
    expect(mine.every((e) => e.event === 'rfq_offer' && e.payload.maker === maker.address)).toBe(true);
    assertNoTakerIdentity(
      mine.map((e) => e.payload),
      { taker, referrer, salt: q.quote.taker_salt },
    );
  });

  it('a maker API key offers as its bot wallet', async () => {
    const q = await newQuote();
    const res = await request(app)
      .post(`/api/quote/${q.quote.id}`)
      .set(bearer(botSecret))
      .send(await sign(q.quote, bot))
      .expect(201);
    expect(res.body.offer.maker).toBe(bot.address);
  });

  it('refuses a signature by another wallet, naming the signature', async () => {
    const q = await newQuote();
    const body = await sign(q.quote, newWallet(), { maker: maker.address });
    const res = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(body).expect(400);
    expect(res.body.details).toEqual([{ path: 'signature', message: expect.stringContaining(`not the maker ${maker.address}`) }]);
  });

  it('refuses a field altered after signing', async () => {
    const q = await newQuote();
    const body = { ...(await sign(q.quote)), package_premium: '1' };
    const res = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(body).expect(400);
    expect(res.body.details[0].path).toBe('signature');
  });

  it('refuses a wrong taker hash and an altered leg, naming each field', async () => {
    const q = await newQuote();
    const other = await newQuote();
    const wrongHash = { ...(await sign(q.quote)), taker_address_hash: other.quote.taker_address_hash };
    const res = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(wrongHash).expect(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['taker_address_hash']);

    const signedForOther = await sign(other.quote);
    const legs = (signedForOther.legs as Record<string, unknown>[]).map((l, i) => (i === 1 ? { ...l, strike_wad: '1' } : l));
    const bad = await request(app)
      .post(`/api/quote/${other.quote.id}`)
      .set(bearer(makerToken))
      .send({ ...signedForOther, legs })
      .expect(400);
    expect(bad.body.details.map((d: { path: string }) => d.path)).toEqual(['legs[1].strike_wad']);
  });

  it('refuses a maker field that is not the authenticated maker', async () => {
    const q = await newQuote();
    const body = await sign(q.quote, bot);
    const res = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(body).expect(403);
    expect(res.body.code).toBe('maker_mismatch');
  });

  it('refuses a replayed nonce with 409', async () => {
    const q = await newQuote();
    const body = await sign(q.quote);
    await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(body).expect(201);
    const again = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(body).expect(409);
    expect(again.body.code).toBe('nonce_used');
  });

  it('refuses a deadline past the quote expiry and an unknown premium token', async () => {
    const q = await newQuote();
    const late = await sign(q.quote, maker, { deadline: Math.floor(Date.parse(q.quote.expires_at) / 1000) + 60 });
    const res = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(late).expect(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toEqual(['deadline']);
    const token = await sign(q.quote, maker, { premiumToken: randomAddress() });
    const res2 = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(token).expect(400);
    expect(res2.body.details.map((d: { path: string }) => d.path)).toEqual(['premium_token']);
  });

  it.each(['filled', 'cancelled'] as const)('an offer on a %s quote is 409 naming its state, and is not stored', async (state) => {
    const q = await newQuote();
    const body = await sign(q.quote, maker);
    // Cancelled by the state module itself; filled as the indexer's settlement leaves it (its own tests cover how).
    if (state === 'cancelled') expect(await closeQuote(env.db, q.quote.id, state)).not.toBeNull();
    else await env.db.query(`UPDATE quotes SET state = 'filled', closed_at = now() WHERE id = $1 AND state = 'open'`, [q.quote.id]);
    const res = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(body).expect(409);
    expect(res.body).toEqual({ error: `quote ${q.quote.id} is ${state}; offers are closed`, code: `quote_${state}`, request_id: expect.any(String) });
    const stored: { n: number }[] = await env.db.query(`SELECT count(*)::int AS n FROM quote_offers WHERE quote_id = $1`, [q.quote.id]);
    expect(stored[0].n).toBe(0);
  });

  it('an offer after expiry is 409', async () => {
    const q = await newQuote({ expires_in: 1 });
    const body = await sign(q.quote, maker, { deadline: Math.floor(Date.now() / 1000) + 30 });
    await new Promise((r) => setTimeout(r, 1100));
    const res = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(makerToken)).send(body).expect(409);
    expect(res.body.code).toBe('quote_expired');
  });

  it('an offer that reaches its quote while the quote is being closed waits for the close, is refused, and stores nothing', async () => {
    const q = await newQuote();
    const body = await sign(q.quote);
    const closer = env.db.createQueryRunner();
    await closer.connect();
    await closer.startTransaction();
    try {
      // The close holds the quote's row lock until it commits, as the expiry does.
      expect(await closeQuote(closer.manager, q.quote.id, 'cancelled')).not.toBeNull();
      // The offer's checks read the quote as still open (the close is not committed); its insert then waits on the lock.
      const posted = request(app)
        .post(`/api/quote/${q.quote.id}`)
        .set(bearer(makerToken))
        .send(body)
        .then((r) => r);
      await eventually(
        async () =>
          (await env.db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))[0]
            .n as number,
        (n) => n >= 1,
        30_000,
        "the offer's insert waiting on the quote's lock",
      );
      await closer.commitTransaction();
      const res = await posted;
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: `quote ${q.quote.id} is cancelled; offers are closed`, code: 'quote_cancelled', request_id: expect.any(String) });
      const stored: { n: number }[] = await env.db.query(`SELECT count(*)::int AS n FROM quote_offers WHERE quote_id = $1`, [q.quote.id]);
      expect(stored[0].n).toBe(0);
    } finally {
      if (closer.isTransactionActive) await closer.rollbackTransaction();
      await closer.release();
    }
  });

  it('a wallet without maker rights is 403, no credential 401, and nothing is stored', async () => {
    const q = await newQuote();
    const body = await sign(q.quote, freemium);
    const forbidden = await request(app).post(`/api/quote/${q.quote.id}`).set(bearer(freemiumToken)).send(body).expect(403);
    expect(forbidden.body.code).toBe('maker_rights_required');
    await request(app).post(`/api/quote/${q.quote.id}`).send(body).expect(401);
    const rows = await env.db.query('SELECT count(*)::int AS n FROM quote_offers WHERE quote_id = $1', [q.quote.id]);
    expect(rows[0].n).toBe(0);
  });

  it('an unknown quote is 404 and a Dutch bid on a standard quote is 409', async () => {
    const q = await newQuote();
    const body = await sign(q.quote);
    await request(app).post('/api/quote/6b1f5bf2-86a4-4b5e-9f43-3f0e0f4e0c11').set(bearer(makerToken)).send(body).expect(404);
    const dutch = await request(app)
      .post(`/api/quote/${q.quote.id}/offer`)
      .set(bearer(makerToken))
      .send({ buy_override_bps: 10, sell_override_bps: 10 })
      .expect(409);
    expect(dutch.body.code).toBe('not_dutch');
  });
});
