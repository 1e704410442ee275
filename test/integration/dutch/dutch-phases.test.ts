import { randomUUID } from 'node:crypto';
import { zeroAddress } from 'viem';
import type { z } from 'zod';
import { competingWire, fillableWire, makerBidWire, takerBidWire, takerDutchQuoteWire, winnerAwardWire } from '../../../wire/src/dutch.wire';
import { makerResultWire, takerResultWire } from '../../../wire/src/quote.wire';
import { EventPublisher, topics } from '../../../shared/events';
import { hashStreamToken, PairDirectory, QuoteRepository } from '../../../shared/quotes';
import { awardDutchQuote, DutchAuctioneer, dutchAwardJob, DutchRepository, fillerConsentMessage } from '../../../shared/dutch';
import { directionsHash, recoverDutchAwardSigner } from '../../../shared/protocol';
import { DEVELOPMENT_SERVICE_SIGNER } from '../../../shared/chain/service-signer';
import { NetworksService } from '../../../shared/networks';
import { HANDLERS } from '../../../workers/job.handlers';
import { handles } from '../../../workers/job-binding';
import { buildWorkerContext } from '../../../workers/worker-context';
import { dutchBody, endNow, FIXTURE_MOTHERSHIP, LONG_COMPETE_MS, storedAward, recordFixturePair } from '../../support/dutch';
import { assertNoTakerIdentity, eventually, topicEvents, type SeenEvent } from '../../support/events';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { signedOffer } from '../../support/offers';
import { FIXTURE_USDC } from '../../support/quotes';
import { bearer, newWallet, signIn } from '../../support/wallets';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { workerReplicas } from '../../support/workers';

/**
 * Dutch phases end to end through real jobs: competing (bids, nothing about the side on the
 * feed), the award (best bid for the taker's side, ties to the earlier), exclusive, open and
 * expiry; each transition once with two replicas and after a replica dies mid-advance.
 * An auction that is bid on competes for long and is ended by the test once its bids are heard
 * (endNow), so a slow machine cannot close it under its own bids. So do the auctions whose
 * phases are compared, once their competing announce is heard: an award that beat the announce
 * job would leave nothing to announce. (That a competition ends by its delayed job alone is
 * shown by dutch-fill.test.ts, whose unbid auctions wait for it.)
 */
describe('Dutch phases', () => {
  let env: TestEnv;
  let app: ReturnType<typeof buildApp>['app'];
  const makerA = newWallet();
  const makerB = newWallet();
  const freemium = newWallet();
  const watcher = randomAddress();
  let tokenA: string;
  let tokenB: string;
  let freemiumToken: string;

  // A replica's lock lapses within a second of its death: another takes its job over.
  const replicas = workerReplicas(() => env, { concurrency: 8, interestedMakers: [watcher], lockDurationMs: 1000, stalledIntervalMs: 500 });
  const startReplica = (handlers = HANDLERS) => replicas.start({ handlers });

  beforeAll(async () => {
    // One maker bids on many auctions here: the fade limit on open rights (issue #38) is not what this file tests.
    env = await createTestEnv({ DUTCH_FADE_LIMIT: '1000' });
    let ctx;
    ({ app, ctx } = buildApp(env));
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    // Bids need the fill bond of the premium token (fails closed): these makers need none.
    await new NetworksService(env.db).setSetting('bond_requirements', { USDC: { premium_bond_amount: '0', fill_bond_amount: '0' } });
    await recordFixturePair(env.db);
    const owner = newWallet();
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Dutch Makers', owner: owner.address });
    for (const m of [makerA, makerB]) await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: m.address, role: 'member' });
    tokenA = await signIn(app, makerA);
    tokenB = await signIn(app, makerB);
    freemiumToken = await signIn(app, freemium);
  });
  afterEach(async () => {
    await replicas.closeAll();
  });
  afterAll(() => env.close());

  async function create(o: Parameters<typeof dutchBody>[1] = {}) {
    const taker = newWallet();
    const res = await request(app)
      .post('/api/quote')
      .send(await dutchBody(taker, o))
      .expect(201);
    return { taker, body: res.body as { quote: Record<string, any>; stream_token: string }, stream: topics.rfqStream(hashStreamToken(res.body.stream_token)) };
  }
  const bid = (id: string, token: string, buy: number, sell: number) =>
    request(app).post(`/api/quote/${id}/offer`).set(bearer(token)).send({ buy_override_bps: buy, sell_override_bps: sell });
  const of = (events: SeenEvent[], id: string) => events.filter((e) => e.payload.quote_id === id);
  const feed = () => topicEvents(env, topics.quotesRequests(31337));
  /** Waits until the topic has an event matching `check`, then, after a sentinel, returns all it got. */
  async function settled(topic: ReturnType<typeof topics.rfqStream>, check: (e: SeenEvent[]) => boolean, timeoutMs = 15000) {
    await eventually(() => topicEvents(env, topic), check, timeoutMs);
    const sentinel = `sentinel-${randomUUID()}`;
    await new EventPublisher({ redis: env.redis, config: env.config }).publish(topic, 'rfq_result', { quote_id: sentinel });
    const all = await eventually(
      () => topicEvents(env, topic),
      (e) => e.some((x) => x.payload.quote_id === sentinel),
    );
    return all.filter((e) => e.payload.quote_id !== sentinel);
  }
  type Created = Awaited<ReturnType<typeof create>>;
  /** Waits until the taker heard the competing announce (its own job, which an award that came first would make moot). */
  const competingHeard = (q: Created) =>
    eventually(
      () => topicEvents(env, q.stream),
      (e) => e.some((x) => x.payload.dutch_phase === 'competing'),
    );
  /**
   * Runs an auction created with a long competition (LONG_COMPETE_MS) past its bids: waits until
   * the taker heard the competing announce and every bid (`bids` rfq_offer events), ends the competition, and once the quote
   * is open to every filler ends the quote too. Each step follows an event, not a duration.
   */
  async function runPastBids(q: Created, bids: number) {
    await competingHeard(q);
    await eventually(
      () => topicEvents(env, q.stream),
      (e) => e.filter((x) => x.event === 'rfq_offer').length >= bids,
    );
    await endNow(env, q.body.quote.id, 'competition');
    await eventually(
      () => topicEvents(env, q.stream),
      (e) => e.some((x) => x.payload.dutch_phase === 'open'),
    );
    await endNow(env, q.body.quote.id, 'quote');
  }

  it('the competing payload carries nothing from which the directions can be computed', async () => {
    startReplica();
    const legs = [
      { type: 'put' as const, structure: 0 as const, strike: 2500n },
      { type: 'put' as const, structure: 1 as const, strike: 2800n },
      { type: 'call' as const, structure: 1 as const, strike: 3200n },
      { type: 'call' as const, structure: 0 as const, strike: 3500n },
    ];
    const expiry = Math.floor(Date.now() / 1000) + 86_400;
    const bought = await create({ legs, expiry, polarity: 'b_is_buy', body: { compete_ms: LONG_COMPETE_MS } });
    const sold = await create({ legs, expiry, polarity: 'a_is_buy', body: { compete_ms: LONG_COMPETE_MS } });
    const events = await eventually(feed, (e) => of(e, bought.body.quote.id).length > 0 && of(e, sold.body.quote.id).length > 0);
    const [b] = of(events, bought.body.quote.id);
    const [s] = of(events, sold.body.quote.id);
    expect(b.payload.dutch_phase).toBe('competing');
    // Brute force: no direction vector, nor its hash, appears in any field of either payload.
    const text = (p: unknown) => JSON.stringify(p).toLowerCase();
    for (let v = 0; v < 2 ** legs.length; v++) {
      const dirs = legs.map((_, i) => ((v >> i) & 1) as 0 | 1);
      for (const p of [b.payload, s.payload]) {
        expect(text(p)).not.toContain(directionsHash(dirs).slice(2));
        expect(text(p)).not.toContain(JSON.stringify(dirs));
      }
    }
    for (const key of [
      'directions',
      'direction',
      'polarity',
      'maker_address_hash',
      'taker_address_hash',
      'taker_signature',
      'dutch_request',
      'start_premium',
      'maker_pays_taker',
    ]) {
      expect(text(b.payload)).not.toContain(`"${key}"`);
    }
    // A buy and a sell of one package are indistinguishable but for ids and times.
    const strip = (p: Record<string, unknown>) => ({ ...p, quote_id: '', seq: 0, compete_ends_at: '', expires_at: '', created_at: '' });
    expect(strip(b.payload)).toEqual(strip(s.payload));
    assertNoTakerIdentity([b.payload, s.payload], { taker: bought.taker.address, salt: bought.body.quote.taker_salt });
    assertNoTakerIdentity([s.payload], { taker: sold.taker.address, salt: sold.body.quote.taker_salt });
    // The interested maker's own topic gets the same competing payload.
    const mine = await eventually(
      () => topicEvents(env, topics.rfqMaker(watcher)),
      (e) => of(e, bought.body.quote.id).length > 0,
    );
    expect(of(mine, bought.body.quote.id)[0].payload).toEqual({ ...b.payload, seq: of(mine, bought.body.quote.id)[0].payload.seq });
  });

  it('bids: maker rights, a documented range, a later bid replaces the earlier, the taker hears its side, the maker its own bid', async () => {
    startReplica();
    const q = await create({ polarity: 'a_is_buy', body: { compete_ms: LONG_COMPETE_MS } });
    const id = q.body.quote.id;
    await request(app).post(`/api/quote/${id}/offer`).send({ buy_override_bps: 1, sell_override_bps: 1 }).expect(401);
    await bid(id, freemiumToken, 1, 1).expect(403);
    const bad = await bid(id, tokenA, 5001, -1).expect(400);
    expect(bad.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['buy_override_bps', 'sell_override_bps']);
    await bid(id, tokenA, 1.5, 1).expect(400);
    await request(app)
      .post(`/api/quote/00000000-0000-4000-8000-000000000000/offer`)
      .set(bearer(tokenA))
      .send({ buy_override_bps: 1, sell_override_bps: 1 })
      .expect(404);

    const first = await bid(id, tokenA, 10, 20).expect(201);
    expect(first.body.bid).toMatchObject({ quote_id: id, maker: makerA.address, buy_override_bps: 10, sell_override_bps: 20, version: 1, replaced: false });
    const second = await bid(id, tokenA, 30, 40).expect(201);
    expect(second.body.bid).toMatchObject({ bid_id: first.body.bid.bid_id, version: 2, replaced: true, sell_override_bps: 40 });
    const offers = await settled(q.stream, (e) => e.filter((x) => x.event === 'rfq_offer').length >= 2);
    // The taker sells (a_is_buy): it hears the sell side of each version, once each.
    expect(offers.filter((e) => e.event === 'rfq_offer').map((e) => [e.payload.side, e.payload.override_bps, e.payload.version])).toEqual([
      ['sell', 20, 1],
      ['sell', 40, 2],
    ]);
    const poll = await request(app).get(`/api/quote/${id}`).query({ stream_token: q.body.stream_token }).expect(200);
    expect(poll.body.bids).toEqual([expect.objectContaining({ maker: makerA.address, side: 'sell', override_bps: 40, version: 2 })]);
    expect(poll.body.quote.dutch_phase).toBe('competing');

    // The bidding maker's own topic echoes each version as stored (both sides, its filler), as its POST answered it.
    const echoes = await eventually(
      () => topicEvents(env, topics.rfqMaker(makerA.address)),
      (e) => of(e, id).filter((x) => x.event === 'dutch_bid').length >= 2,
    );
    const mine = of(echoes, id).filter((e) => e.event === 'dutch_bid');
    expect(mine.map(({ payload: { seq: _seq, ...bid } }) => bid)).toEqual([first.body.bid, second.body.bid]);
    // Nothing of the taker: not its address or salt, no referrer field (a Dutch request's referrer is always zero).
    assertNoTakerIdentity(
      mine.map((e) => e.payload),
      { taker: q.taker.address, salt: q.body.quote.taker_salt },
    );
    // Another maker hears nothing of this bid.
    expect(of(await topicEvents(env, topics.rfqMaker(makerB.address)), id).some((e) => e.event === 'dutch_bid')).toBe(false);
  });

  it('refuses a bid on a standard quote, and a package offer on a Dutch quote', async () => {
    const std = await request(app)
      .post('/api/quote')
      .send({
        chain_id: 31337,
        taker_address: randomAddress(),
        polarity: 'b_is_buy',
        expires_in: 60,
        intents: ((await dutchBody(newWallet())).dutch_request as { intents: unknown[] }).intents,
      })
      .expect(201);
    const notDutch = await bid(std.body.quote.id, tokenA, 1, 1).expect(409);
    expect(notDutch.body.code).toBe('not_dutch');
    const q = await create({ body: { compete_ms: LONG_COMPETE_MS } });
    const offer = await signedOffer({ ...q.body.quote, id: q.body.quote.id } as never, makerA, { mothership: FIXTURE_MOTHERSHIP, premiumToken: FIXTURE_USDC });
    const refused = await request(app).post(`/api/quote/${q.body.quote.id}`).set(bearer(tokenA)).send(offer).expect(409);
    expect(refused.body.code).toBe('dutch_quote');
  });

  it("awards the best bid for the taker's side (ties: the earlier), names its filler in the award, tells the winner alone, then opens and expires", async () => {
    startReplica();
    const q = await create({ body: { compete_ms: LONG_COMPETE_MS, exclusive_ms: 1500 } });
    const id = q.body.quote.id;
    // The taker buys: A's buy side (25) ties B's (25) but came first; B's better sell side does not count.
    await bid(id, tokenA, 25, 1).expect(201);
    await bid(id, tokenB, 25, 900).expect(201);
    await runPastBids(q, 2);
    const events = await settled(q.stream, (e) => e.some((x) => x.event === 'rfq_result'), 20000);
    const phases = events.filter((e) => e.event === 'rfq_request').map((e) => e.payload.dutch_phase);
    expect(phases).toEqual(['competing', 'exclusive', 'open']);
    const result = events.filter((e) => e.event === 'rfq_result');
    expect(result).toHaveLength(1);
    expect(result[0].payload).toMatchObject({ quote_id: id, state: 'expired' });

    const exclusive = events.find((e) => e.payload.dutch_phase === 'exclusive')!.payload;
    const award = exclusive.award as Record<string, string | number>;
    expect(exclusive.winner).toBe(makerA.address);
    expect(award.improvement_bps).toBe('25');
    const typed = storedAward(award);
    expect(typed.requestDigest).toBe(q.body.quote.request_digest);
    await expect(recoverDutchAwardSigner({ chainId: 31337, mothership: FIXTURE_MOTHERSHIP }, typed, award.signature as `0x${string}`)).resolves.toBe(
      DEVELOPMENT_SERVICE_SIGNER.address,
    );

    // The award names the winner's own wallet as its filler (its bid named no other); no salt anywhere.
    expect(typed.filler).toBe(makerA.address);
    const winner = await topicEvents(env, topics.rfqMaker(makerA.address));
    const notices = of(winner, id).filter((e) => e.event === 'dutch_award');
    expect(notices).toHaveLength(1);
    expect(notices[0].payload.award).toEqual(award);
    expect(Object.keys(notices[0].payload).some((k) => k.includes('salt') && k !== 'taker_salt')).toBe(false);
    const loser = await topicEvents(env, topics.rfqMaker(makerB.address));
    expect(of(loser, id).some((e) => e.event === 'dutch_award')).toBe(false);
    // Both bidders hear the result.
    expect(of(loser, id).filter((e) => e.event === 'rfq_result')).toHaveLength(1);

    // The public feed: competing, then the fillable payload twice (exclusive, open), never the taker.
    const pub = of(await feed(), id);
    expect(pub.map((e) => e.payload.dutch_phase)).toEqual(['competing', 'exclusive', 'open']);
    assertNoTakerIdentity(
      pub.map((e) => ({ ...e.payload, dutch_request: { ...(e.payload.dutch_request as object), referrer: undefined } })),
      { taker: q.taker.address, salt: q.body.quote.taker_salt },
    );
    expect(pub[1].payload).toMatchObject({ directions: [1, 0], taker_signature: q.body.quote.taker_signature, request_digest: q.body.quote.request_digest });

    const late = await bid(id, tokenB, 1, 1).expect(409);
    expect(late.body).toEqual({ error: `quote ${id} is expired; bids are closed`, code: 'quote_expired', request_id: expect.any(String) });
    const row = await new DutchRepository(env.db).find(id);
    expect(row?.dutch_phase).toBe('open');
  }, 40000);

  it('every payload of an auction parses with the strict wire schema of its form (dutch.wire.ts, quote.wire.ts)', async () => {
    startReplica();
    const q = await create({ body: { compete_ms: LONG_COMPETE_MS, exclusive_ms: 1500 } });
    const id = q.body.quote.id;
    await bid(id, tokenA, 25, 1).expect(201);
    await runPastBids(q, 1);
    const taker = await settled(q.stream, (e) => e.some((x) => x.event === 'rfq_result'), 20000);
    const winner = of(await topicEvents(env, topics.rfqMaker(makerA.address)), id);
    const pub = of(await feed(), id);
    const forms: [string, SeenEvent[], z.ZodType][] = [
      ['taker rfq_request', taker.filter((e) => e.event === 'rfq_request'), takerDutchQuoteWire],
      ['taker rfq_offer', taker.filter((e) => e.event === 'rfq_offer'), takerBidWire],
      ['taker rfq_result', taker.filter((e) => e.event === 'rfq_result'), takerResultWire],
      ['feed competing', pub.filter((e) => e.payload.dutch_phase === 'competing'), competingWire],
      ['feed fillable', pub.filter((e) => e.payload.dutch_phase !== 'competing'), fillableWire],
      ['winner dutch_award', winner.filter((e) => e.event === 'dutch_award'), winnerAwardWire],
      ['winner dutch_bid', winner.filter((e) => e.event === 'dutch_bid'), makerBidWire],
      ['winner rfq_result', winner.filter((e) => e.event === 'rfq_result'), makerResultWire],
    ];
    for (const [what, events, schema] of forms) {
      expect([what, events.length > 0]).toEqual([what, true]);
      for (const { payload } of events) {
        const { seq: _seq, ...sent } = payload;
        expect([what, schema.safeParse(sent).error?.issues ?? []]).toEqual([what, []]);
      }
    }
  }, 40000);

  it('a bid may name its filler: the award names that address; a malformed or zero filler is refused naming the field, and nothing is stored', async () => {
    startReplica();
    const q = await create({ body: { compete_ms: LONG_COMPETE_MS, exclusive_ms: 5000 } });
    const id = q.body.quote.id;
    for (const filler of ['0x1234', zeroAddress, 42]) {
      const refused = await request(app)
        .post(`/api/quote/${id}/offer`)
        .set(bearer(tokenA))
        .send({ buy_override_bps: 5, sell_override_bps: 5, filler })
        .expect(400);
      expect(refused.body).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ path: 'filler' })] });
    }
    expect(await env.db.query(`SELECT 1 FROM dutch_bids WHERE quote_id = $1`, [id])).toHaveLength(0);
    // A desk outside the maker's organization consents to being named (filler_signature, issue #38).
    const deskWallet = newWallet();
    const desk = deskWallet.address;
    const consent = await deskWallet.signMessage({ message: fillerConsentMessage(id, makerA.address, desk) });
    const ok = await request(app)
      .post(`/api/quote/${id}/offer`)
      .set(bearer(tokenA))
      .send({ buy_override_bps: 5, sell_override_bps: 5, filler: desk.toLowerCase(), filler_signature: consent })
      .expect(201);
    expect([ok.body.bid.maker, ok.body.bid.filler]).toEqual([makerA.address, desk]);
    await endNow(env, id, 'competition');
    const d = await eventually(
      () => new DutchRepository(env.db).find(id),
      (r) => r?.award !== null && r?.award !== undefined,
    );
    expect(d?.winner).toBe(makerA.address);
    expect(storedAward(d!.award as Record<string, string | number>).filler).toBe(desk);
    // The winner (the maker, not the filler wallet) is told, on its own topic.
    const notices = of(
      await eventually(
        () => topicEvents(env, topics.rfqMaker(makerA.address)),
        (e) => of(e, id).some((x) => x.event === 'dutch_award'),
      ),
      id,
    );
    expect(notices.filter((e) => e.event === 'dutch_award').map((e) => (e.payload.award as { filler: string }).filler)).toEqual([desk]);
  });

  it("no bid: straight to open at the competition's end, with an award that names no winner", async () => {
    startReplica();
    const q = await create({ body: { compete_ms: LONG_COMPETE_MS, exclusive_ms: 5000 } });
    await competingHeard(q);
    await endNow(env, q.body.quote.id, 'competition');
    const events = await eventually(
      () => topicEvents(env, q.stream),
      (e) => e.some((x) => x.payload.dutch_phase === 'open'),
    );
    expect(events.filter((e) => e.event === 'rfq_request').map((e) => e.payload.dutch_phase)).toEqual(['competing', 'open']);
    const open = events.find((e) => e.payload.dutch_phase === 'open')!.payload;
    expect(open.winner).toBeNull();
    expect((open.award as Record<string, unknown>).filler).toBe(zeroAddress);
    const late = await bid(q.body.quote.id, tokenA, 5, 5).expect(409);
    expect(late.body.code).toBe('competition_over');
  });

  it('by a fake clock: an award or an opening that fires early waits the rest, one on time advances', async () => {
    const q = await create({ body: { compete_ms: 60_000, exclusive_ms: 20_000 } });
    const id = q.body.quote.id;
    await bid(id, tokenA, 3, 3).expect(201);
    const d = (await new DutchRepository(env.db).find(id))!;
    const competeEnd = new Date(d.compete_ends_at).getTime();
    let now = competeEnd - 5_000;
    const ctx = buildWorkerContext(env, async () => []);
    const auctioneer = new DutchAuctioneer(
      {
        db: env.db,
        events: ctx.events,
        logger: env.logger,
        interestedMakers: async () => [],
        pairs: new PairDirectory(env.db, 1000),
        queue: env.queue,
        signer: DEVELOPMENT_SERVICE_SIGNER,
        skewMs: 50,
      },
      () => now,
    );
    await expect(auctioneer.award(id)).rejects.toMatchObject({ delayMs: 5_000 });
    expect((await new DutchRepository(env.db).find(id))?.dutch_phase).toBe('competing');
    now = competeEnd;
    await expect(auctioneer.award(id)).resolves.toBe('exclusive');
    const awarded = (await new DutchRepository(env.db).find(id))!;
    expect(new Date(awarded.exclusive_ends_at!).getTime()).toBe(competeEnd + 20_000);
    now = competeEnd + 5_000;
    await expect(auctioneer.open(id)).rejects.toMatchObject({ delayMs: 15_000 });
    now = competeEnd + 20_000;
    await expect(auctioneer.open(id)).resolves.toBe(true);
    // A retried award finds the award made: it changes nothing (its publishes are keyed).
    await expect(auctioneer.award(id)).resolves.toBe('exclusive');
    const after = (await new DutchRepository(env.db).find(id))!;
    expect(after.dutch_phase).toBe('open');
    expect(after.winner).toBe(awarded.winner);
    expect(after.award).toEqual(awarded.award);
  });

  it("two replicas, and a replica killed after the award's transition: each phase is entered and published once", async () => {
    let entered: () => void = () => undefined;
    const inJob = new Promise<void>((r) => (entered = r));
    const dying = HANDLERS.map((h) =>
      h.spec === dutchAwardJob
        ? handles(dutchAwardJob, async (p, ctx) => {
            // The transition commits, then the process is gone before publishing.
            await awardDutchQuote(ctx.db, p.quote_id, { winner: null, exclusive_ends_at: null, award: { dead: 'replica' } });
            entered();
            await new Promise(() => undefined);
          })
        : h,
    );
    const a = startReplica(dying);
    const q = await create({ body: { compete_ms: LONG_COMPETE_MS } });
    await competingHeard(q);
    await endNow(env, q.body.quote.id, 'competition');
    await inJob;
    await a.close(true);
    startReplica();
    startReplica();
    const events = await settled(q.stream, (e) => e.some((x) => x.payload.dutch_phase === 'open'), 20000);
    expect(events.filter((e) => e.event === 'rfq_request').map((e) => e.payload.dutch_phase)).toEqual(['competing', 'open']);
    expect(of(await feed(), q.body.quote.id).map((e) => e.payload.dutch_phase)).toEqual(['competing', 'open']);

    // A second auction through two healthy replicas: every transition once.
    const r = await create({ body: { compete_ms: LONG_COMPETE_MS, exclusive_ms: 800 } });
    await bid(r.body.quote.id, tokenB, 7, 7).expect(201);
    await runPastBids(r, 1);
    const all = await settled(r.stream, (e) => e.some((x) => x.event === 'rfq_result'), 20000);
    expect(all.map((e) => (e.event === 'rfq_request' ? e.payload.dutch_phase : e.event))).toEqual([
      'competing',
      'rfq_offer',
      'exclusive',
      'open',
      'rfq_result',
    ]);
    const winner = of(await topicEvents(env, topics.rfqMaker(makerB.address)), r.body.quote.id).filter((e) => e.event === 'dutch_award');
    expect(winner).toHaveLength(1);
    expect((await new QuoteRepository(env.db).findQuote(r.body.quote.id))?.state).toBe('expired');
  }, 60000);
});
