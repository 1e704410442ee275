import { randomUUID } from 'node:crypto';
import { zeroAddress, type Address } from 'viem';
import { awardDutchQuotes, DutchAuctioneer, DutchRepository } from '../../../shared/dutch';
import { decideAward } from '../../../shared/dutch/dutch-award-decision';
import { topics } from '../../../shared/events';
import { DutchAwardSigner, recoverDutchAwardSigner } from '../../../shared/protocol';
import { closeQuote, hashStreamToken, PairDirectory } from '../../../shared/quotes';
import { DEVELOPMENT_SERVICE_SIGNER } from '../../../shared/chain/service-signer';
import { NetworksService } from '../../../shared/networks';
import { buildWorkerContext } from '../../../workers/worker-context';
import { sweepQuotes } from '../../../workers/quotes/quote-sweeper';
import { DutchClock } from '../../../workers/dutch/dutch-clock';
import { FIXTURE_MOTHERSHIP, storedAward } from '../../support/dutch';
import { assertNoTakerIdentity, eventually, topicEvents, type SeenEvent } from '../../support/events';
import { networkFile, randomAddress } from '../../support/fixtures';
import { FIXTURE_PAIR, FIXTURE_USDC } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * Awards in batches (docs/DUTCH.md): one run awards every competition due at once, each to the
 * right winner and once, whoever else races it (another replica, the sweeper, the other
 * quotes' own jobs), and an auction that cannot be awarded does not hold up the rest.
 */
describe('Dutch awards in batches', () => {
  let env: TestEnv;
  const makers = [randomAddress(), randomAddress(), randomAddress()];

  beforeAll(async () => {
    // One maker bids on many auctions here: the fade limit on open rights (issue #38) is not what this file tests.
    env = await createTestEnv({ DUTCH_FADE_LIMIT: '1000' });
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(() => env.close());
  /** Each test writes tens of auctions, their legs and bids, one statement at a time: on a loaded machine that alone takes tens of seconds. */
  const BATCH_TEST_MS = 120_000;

  const auctioneer = () =>
    new DutchAuctioneer({
      db: env.db,
      events: buildWorkerContext(env, async () => []).events,
      logger: env.logger,
      interestedMakers: async () => [],
      pairs: new PairDirectory(env.db, 1000),
      queue: env.queue,
      signer: DEVELOPMENT_SERVICE_SIGNER,
      skewMs: 0,
    });

  interface Auction {
    id: string;
    taker: Address;
    polarity: 'b_is_buy' | 'a_is_buy';
    /** Bids in the order they are placed: [maker index, buy bps, sell bps]. */
    bids: [number, number, number][];
  }

  /**
   * Competitions already over, with their bids: written as the create path writes them (a
   * competition still running), bid on, and only then ended, all at one instant `endedAgoMs`
   * ago. The end follows the bids, so no machine is slow enough to end a competition before its
   * bids are in, and nothing waits for a clock.
   */
  async function competitionsOver(auctions: Auction[], opts: { digest?: (a: Auction) => string; endedAgoMs?: number } = {}): Promise<void> {
    const running = new Date(Date.now() + 3_600_000);
    const repo = new DutchRepository(env.db);
    const nowS = Math.floor(Date.now() / 1000);
    for (const [i, a] of auctions.entries()) {
      await repo.insert(
        null,
        {
          id: a.id,
          chain_id: 31337,
          offer_format: 'dutch_only',
          polarity: a.polarity,
          strategy: 'capped_call',
          taker_address: a.taker,
          referrer: zeroAddress,
          taker_salt: `0x${'11'.repeat(32)}`,
          taker_address_hash: `0x${'22'.repeat(32)}`,
          directions: a.polarity === 'b_is_buy' ? [1, 0] : [0, 1],
          pair_contract: FIXTURE_PAIR,
          expiry_timestamp: nowS + 86_400,
          stream_token_hash: hashStreamToken(a.id),
          expires_at: new Date(Date.now() + 60_000),
          dutch_request: { dutch_premium: { token: FIXTURE_USDC }, referrer: zeroAddress },
          taker_signature: `0x${'33'.repeat(65)}`,
          dutch_request_digest: opts.digest?.(a) ?? `0x${a.id.replace(/-/g, '').padEnd(64, '0')}`,
          taker_nonce: String(Date.now() * 1000 + i),
          compete_ends_at: running,
          exclusive_ms: 30_000,
        },
        [0, 1].map((idx) => ({
          idx,
          option_type: 0 as const,
          structure: idx as 0 | 1,
          direction: (1 - idx) as 0 | 1,
          strike_wad: '3000',
          amount: '1',
          start_exercise_timestamp: 0,
          expiry_timestamp: nowS + 86_400,
        })),
      );
      for (const [m, buy, sell] of a.bids) await env.db.transaction((tx) => repo.upsertBid(tx, a.id, makers[m], buy, sell));
    }
    const ended = await env.db.query(
      `WITH e AS (UPDATE quotes SET compete_ends_at = $2 WHERE id = ANY($1::uuid[]) RETURNING id) SELECT count(*)::int AS n FROM e`,
      [auctions.map((a) => a.id), new Date(Date.now() - (opts.endedAgoMs ?? 0))],
    );
    expect(ended[0].n).toBe(auctions.length);
  }

  /** Each auction with a different winner pattern: a clear best, a tie (the earlier wins), the other side's better bid, none. */
  function auctionsOf(n: number): Auction[] {
    const patterns: Auction['bids'][] = [
      [
        [0, 10, 1],
        [1, 20, 1],
      ],
      [
        [2, 15, 1],
        [0, 15, 99],
      ],
      [
        [1, 5, 50],
        [2, 6, 1],
      ],
      [],
    ];
    return Array.from({ length: n }, (_, i) => ({
      id: randomUUID(),
      taker: randomAddress(),
      polarity: i % 3 === 2 ? 'a_is_buy' : 'b_is_buy',
      bids: patterns[i % patterns.length],
    }));
  }

  /** The winner docs/DUTCH.md names: best improvement on the taker's side, ties to the earlier bid. */
  function expectedWinner(a: Auction): Address | null {
    const side = a.polarity === 'b_is_buy' ? 1 : 2;
    let best: [number, number, number] | null = null;
    for (const b of a.bids) if (!best || b[side] > best[side]) best = b;
    return best ? makers[best[0]] : null;
  }

  const phasesOn = (events: SeenEvent[], id: string) =>
    events.filter((e) => e.payload.quote_id === id && e.event === 'rfq_request').map((e) => e.payload.dutch_phase);

  async function expectAwardedOnce(auctions: Auction[]): Promise<void> {
    const repo = new DutchRepository(env.db);
    const feed = await topicEvents(env, topics.quotesRequests(31337));
    const toMakers = await Promise.all(makers.map((m) => topicEvents(env, topics.rfqMaker(m))));
    for (const a of auctions) {
      const d = (await repo.find(a.id))!;
      const winner = expectedWinner(a);
      expect({ id: a.id, winner: d.winner }).toEqual({ id: a.id, winner });
      expect(d.dutch_phase).toBe(winner ? 'exclusive' : 'open');
      const phase = winner ? 'exclusive' : 'open';
      expect(phasesOn(await topicEvents(env, topics.rfqStream(hashStreamToken(a.id))), a.id)).toEqual([phase]);
      expect(phasesOn(feed, a.id)).toEqual([phase]);
      const notices = toMakers.flatMap((evs, m) =>
        evs.filter((e) => e.event === 'dutch_award' && e.payload.quote_id === a.id).map((e) => ({ m, filler: (e.payload.award as { filler: string }).filler })),
      );
      expect(notices.map((s) => makers[s.m])).toEqual(winner ? [winner] : []);
      const award = d.award as Record<string, string | number>;
      // The award names the winner's wallet as its filler (these bids name none), or nobody.
      expect(award.filler).toBe(winner ?? zeroAddress);
      if (winner) expect(notices[0].filler).toBe(winner);
      const typed = storedAward(award);
      await expect(recoverDutchAwardSigner({ chainId: 31337, mothership: FIXTURE_MOTHERSHIP }, typed, award.signature as `0x${string}`)).resolves.toBe(
        DEVELOPMENT_SERVICE_SIGNER.address,
      );
    }
    // Maker-visible payloads of the batch path: never the taker's address or the raw referrer.
    const mine = new Set(auctions.map((a) => a.id));
    const visible = [...feed, ...toMakers.flat()].filter((e) => mine.has(String(e.payload.quote_id)));
    for (const a of auctions) {
      const forIt = visible
        .filter((e) => e.payload.quote_id === a.id)
        .map((e) => ({ ...e.payload, dutch_request: { ...(e.payload.dutch_request as object), referrer: undefined } }));
      assertNoTakerIdentity(forIt, { taker: a.taker });
    }
  }

  it(
    "one run awards every competition due together, each to the right winner; the others' jobs then find it done",
    async () => {
      const auctions = auctionsOf(40);
      await competitionsOver(auctions);
      const a = auctioneer();
      await expect(a.award(auctions[0].id)).resolves.toBe('exclusive');
      const repo = new DutchRepository(env.db);
      for (const x of auctions) expect((await repo.progress(x.id))?.dutch_published_phase).toBe(expectedWinner(x) ? 'exclusive' : 'open');
      // Every other quote's own job: the phase it entered, and nothing published again.
      for (const x of auctions) await expect(a.award(x.id)).resolves.toBe(expectedWinner(x) ? 'exclusive' : 'open');
      await expectAwardedOnce(auctions);
    },
    BATCH_TEST_MS,
  );

  it(
    'two replicas and the sweeper racing one batch: each competition awarded and published once',
    async () => {
      const auctions = auctionsOf(60);
      // Over for longer than the sweeper's grace, so the sweeper takes them too.
      await competitionsOver(auctions, { endedAgoMs: 5_000 });
      const [a, b] = [auctioneer(), auctioneer()];
      const ctx = buildWorkerContext(env, async () => []);
      const tries = await Promise.allSettled([
        ...auctions.slice(0, 20).map((x) => a.award(x.id)),
        ...auctions
          .slice(0, 20)
          .reverse()
          .map((x) => b.award(x.id)),
        sweepQuotes(ctx),
        b.award(auctions[59].id),
      ]);
      // A run that found its quote held by another one is told to look again (never a failure of the award itself).
      for (const t of tries) if (t.status === 'rejected') expect(t.reason).toMatchObject({ delayMs: expect.any(Number) });
      // The stragglers' own jobs, later: nothing left to decide or send.
      for (const x of auctions) await expect(a.award(x.id)).resolves.toBe(expectedWinner(x) ? 'exclusive' : 'open');
      await expectAwardedOnce(auctions);
    },
    BATCH_TEST_MS,
  );

  it(
    'an auction that cannot be awarded does not stop its batch; its own job fails and the rest are awarded',
    async () => {
      const auctions = auctionsOf(12);
      const bad = auctions[5];
      // A request digest that is not 32 bytes cannot be signed: this award fails, alone.
      await competitionsOver(auctions, { digest: (x) => (x.id === bad.id ? '0x1234' : `0x${x.id.replace(/-/g, '').padEnd(64, '0')}`) });
      const a = auctioneer();
      await expect(a.award(bad.id)).rejects.toThrow();
      const good = auctions.filter((x) => x !== bad);
      const repo = new DutchRepository(env.db);
      // The failing run awarded and published the rest of its batch before failing.
      for (const x of good) expect((await repo.progress(x.id))?.dutch_published_phase).toBe(expectedWinner(x) ? 'exclusive' : 'open');
      for (const x of good) await expect(a.award(x.id)).resolves.toBe(expectedWinner(x) ? 'exclusive' : 'open');
      await expectAwardedOnce(good);
      const left = await repo.progress(bad.id);
      expect(left).toMatchObject({ state: 'open', dutch_phase: 'competing', dutch_published_phase: null });
      expect(phasesOn(await topicEvents(env, topics.quotesRequests(31337)), bad.id)).toEqual([]);
      // Its expiry ends it, so the next tests' runs find only their own auctions undecidable.
      expect(await closeQuote(env.db, bad.id, 'expired')).not.toBeNull();
    },
    BATCH_TEST_MS,
  );

  it(
    'a batch whose worker died between its commit and its publish: the sweeper publishes it, once',
    async () => {
      const auctions = auctionsOf(4);
      await competitionsOver(auctions, { endedAgoMs: 5_000 });
      const repo = new DutchRepository(env.db);
      // What a dead run leaves behind: awards stored a while ago, nothing published.
      await env.db.transaction(async (m) => {
        const locked = await repo.lockCompetitions(m, auctions[0].id, new Date(), 10);
        const best = await repo.bestBids(
          m,
          locked.map((x) => ({ id: x.q.id, side: x.q.polarity === 'b_is_buy' ? ('buy' as const) : ('sell' as const) })),
        );
        const signer = new DutchAwardSigner(DEVELOPMENT_SERVICE_SIGNER);
        const mine = locked.filter((x) => auctions.some((a) => a.id === x.q.id));
        const made = await Promise.all(mine.map((x) => decideAward(x, best.get(x.q.id) ?? null, { now: Date.now(), mothership: FIXTURE_MOTHERSHIP, signer })));
        await awardDutchQuotes(
          m,
          made.map((x) => x.decision),
        );
        await m.query(`UPDATE quotes SET awarded_at = awarded_at - interval '5 seconds' WHERE id = ANY($1::uuid[])`, [mine.map((x) => x.q.id)]);
      });
      for (const x of auctions) expect((await repo.progress(x.id))?.dutch_published_phase).toBeNull();
      const ctx = buildWorkerContext(env, async () => []);
      await sweepQuotes(ctx);
      await sweepQuotes(ctx);
      await expectAwardedOnce(auctions);
    },
    BATCH_TEST_MS,
  );

  it(
    'the Dutch clock awards at the deadline with no job running (past an auction it cannot award), and stops when closed',
    async () => {
      const auctions = auctionsOf(9);
      const bad = auctions[4];
      const good = auctions.filter((x) => x !== bad);
      const clock = new DutchClock({ db: env.db, logger: env.logger, dutch: auctioneer() });
      clock.start();
      try {
        // The unawardable one ends at the same instant as the rest: a pass that meets it has the others to award too.
        await competitionsOver(auctions, { digest: (x) => (x.id === bad.id ? '0x1234' : `0x${x.id.replace(/-/g, '').padEnd(64, '0')}`) });
        const repo = new DutchRepository(env.db);
        const all = await eventually(
          () => Promise.all(good.map((a) => repo.progress(a.id))),
          (ps) => ps.every((p) => p?.dutch_published_phase !== null && p?.dutch_published_phase !== undefined),
        );
        expect(all.map((p) => p?.dutch_published_phase)).toEqual(good.map((a) => (expectedWinner(a) ? 'exclusive' : 'open')));
        await expectAwardedOnce(good);
        expect(await repo.progress(bad.id)).toMatchObject({ state: 'open', dutch_phase: 'competing', dutch_published_phase: null });
      } finally {
        await clock.close();
      }
    },
    BATCH_TEST_MS,
  );
});
