import { getAddress, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { mockErc20Abi } from '../../shared/chain/abis';
import { leastOwedInWindow } from '../../shared/dutch';
import { parseDutchRequest, recoverDutchFillSigner } from '../../shared/protocol';
import { chainDutchBody, endNow, LONG_COMPETE_MS, payingTaker } from '../support/dutch';
import { request } from '../support/http';
import { bearer, newWallet, signIn } from '../support/wallets';
import { openDutchStack, type DutchStack, type Fillable, type StackMaker } from './dutch-stack';

const UNFILLABLE_LIMIT = 2;

/**
 * Issue #38, "the unfillable taker". Before: a taker without the premium's balance or allowance
 * opened Dutch auctions that an honest auto-bidding maker won and could not fill; each window
 * counted as that maker's fade, so the taker got the maker blocked for DUTCH_FADE_COOLDOWN (here
 * the fade limit is one: the first such window blocked it), again and again, at no cost. Now the
 * workers read the taker's balance and allowance from the chain when the window ends; a window
 * the taker could not pay is recorded against the taker (its address, and its delegate's taker
 * organization), not the maker, and a taker over DUTCH_TAKER_UNFILLABLE_LIMIT is refused new
 * Dutch auctions. Real stack: Hardhat with the reference contracts, the API over HTTP, the
 * workers (awards, openings, the chain read) and the indexer deciding each window.
 */
describe('attack: a taker who cannot pay gets the winning maker blocked', () => {
  let s: DutchStack;
  let honest: StackMaker;
  let takerOrg: string;
  let takerKey: string;
  const attacker = newWallet();

  const delegateFor = async (wallet: PrivateKeyAccount): Promise<string> =>
    (await request(s.app).post('/api/taker/delegate').set(bearer(takerKey)).send({ address: wallet.address, expires_in: 3600 }).expect(200)).body.token;
  const create = (body: Record<string, unknown>, token?: string) => {
    const r = request(s.app).post('/api/quote');
    return (token ? r.set(bearer(token)) : r).send(body);
  };
  /** An auction of `taker` that competes until the test ends it, with a one-second exclusive window. */
  const auctionBody = (taker: PrivateKeyAccount) => chainDutchBody(s.h.chain, taker, { body: { compete_ms: LONG_COMPETE_MS, exclusive_ms: 1000 } });
  const quotesOf = async (taker: Address) =>
    ((await s.h.env.db.query(`SELECT count(*)::int AS n FROM quotes WHERE lower(taker_address) = lower($1)`, [taker])) as { n: number }[])[0].n;
  const fadesOfHonest = async () => (await request(s.app).get('/api/me').set(bearer(honest.token)).expect(200)).body.dutch_fades;

  /**
   * What an honest maker bot does with the award it won: recover the taker from the signed request,
   * read its premium balance and allowance to the mothership, and fill only if the taker can pay
   * what the fill costs it (a mothership that moves the premium would revert otherwise; the
   * reference one moves none). Returns whether it filled.
   */
  async function honestFill(p: Fillable): Promise<boolean> {
    const req = parseDutchRequest(p.dutch_request, { now: 0 });
    const taker = await recoverDutchFillSigner({ chainId: s.h.chain.chainId, mothership: s.h.chain.addresses.mothership }, req, p.taker_signature as Hex);
    const read = (functionName: 'balanceOf' | 'allowance', args: readonly Address[]) =>
      s.h.chain.publicClient.readContract({ address: req.dutchPremium.token, abi: mockErc20Abi, functionName, args } as never) as Promise<bigint>;
    const owed = leastOwedInWindow(req, p.award);
    const [balance, allowance] = await Promise.all([read('balanceOf', [taker]), read('allowance', [taker, s.h.chain.addresses.mothership])]);
    if (balance < owed || allowance < owed) return false;
    await s.fill(honest.send, p);
    return true;
  }

  /** The honest maker bids on auction `id`, the competition ends, and it wins: its award notice. */
  async function honestWins(id: string): Promise<Fillable> {
    await request(s.app).post(`/api/quote/${id}/offer`).set(bearer(honest.token)).send({ buy_override_bps: 20, sell_override_bps: 20 }).expect(201);
    await endNow(s.h.env, id, 'competition');
    return (await s.winnerNotice(honest.wallet.address, id)).payload;
  }

  /** Lets the chain's time pass the quote's exclusive end and waits for the indexer's decision on it. */
  async function windowPasses(id: string): Promise<Record<string, unknown>> {
    const rows = (sql: string) => s.h.env.db.query(sql, [id]) as Promise<Record<string, unknown>[]>;
    const until = Date.now() + 90_000;
    for (;;) {
      const [q] = await rows(`SELECT exclusive_ends_at FROM quotes WHERE id = $1`);
      const end = Math.ceil(new Date(q.exclusive_ends_at as Date).getTime() / 1000);
      const now = await s.h.chain.now();
      if (end >= now) await s.h.chain.rpc('evm_increaseTime', [end - now + 2]);
      await s.h.chain.rpc('evm_mine', []);
      const [o] = await rows(
        `SELECT faded, taker_unfillable, winner, lower(taker) AS taker, taker_organization_id::text FROM dutch_exclusive_outcomes WHERE quote_id = $1`,
      );
      if (o) return o;
      if (Date.now() > until) throw new Error(`no decision on ${id}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    s = await openDutchStack({
      // One fade would block the maker: before, the first unfillable window did.
      DUTCH_FADE_LIMIT: '1',
      DUTCH_FADE_WINDOW: '86400',
      DUTCH_FADE_COOLDOWN: '3600',
      DUTCH_TAKER_UNFILLABLE_LIMIT: String(UNFILLABLE_LIMIT),
      DUTCH_TAKER_UNFILLABLE_WINDOW: '86400',
      DUTCH_TAKER_UNFILLABLE_COOLDOWN: '3600',
      LOGIN_RATE_LIMIT: '1000',
    });
    honest = await s.maker();
    // The attacker's integrator: a taker organization whose key mints the attacker's delegate.
    const owner = newWallet();
    takerOrg = (await s.ctx.services.identity.orgs.create({ kind: 'taker', name: `Attacking takers ${Date.now()}`, owner: owner.address })).id;
    takerKey = (
      await request(s.app)
        .post('/api/taker/keys')
        .set(bearer(await signIn(s.app, owner)))
        .send({ name: 'integrator' })
        .expect(201)
    ).body.secret;
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it("windows the taker could not pay are its own, not the winner's fades; at the limit its new Dutch auctions are refused, by address and by organization", async () => {
    const delegate = await delegateFor(attacker);
    for (let i = 1; i <= UNFILLABLE_LIMIT; i++) {
      const id = (await create(await auctionBody(attacker), delegate).expect(201)).body.quote.id as string;
      const award = await honestWins(id);
      expect(award.award.filler).toBe(honest.wallet.address);
      // No balance, no allowance: the honest maker cannot fill.
      expect(await honestFill(award)).toBe(false);
      expect(await windowPasses(id)).toEqual({
        faded: false,
        taker_unfillable: true,
        winner: honest.wallet.address,
        taker: attacker.address.toLowerCase(),
        taker_organization_id: takerOrg,
      });
      // The maker is neither faded nor blocked (the fade limit is one).
      expect(await fadesOfHonest()).toMatchObject({ count: 0, blocked_until: null });
    }
    const recorded = (await s.h.env.db.query(
      `SELECT short, balance::text, allowance::text FROM dutch_taker_checks c JOIN quotes q ON q.id = c.quote_id
      WHERE lower(q.taker_address) = lower($1)`,
      [attacker.address],
    )) as Record<string, unknown>[];
    expect(recorded).toEqual(Array.from({ length: UNFILLABLE_LIMIT }, () => ({ short: true, balance: '0', allowance: '0' })));

    // At the limit: refused, naming the limit and when it may try again; nothing stored.
    const before = await quotesOf(attacker.address);
    const refused = await create(await auctionBody(attacker), delegate).expect(403);
    expect(refused.body).toMatchObject({ code: 'taker_unfillable_limit', limit: 'DUTCH_TAKER_UNFILLABLE_LIMIT', blocked_until: expect.any(String) });
    expect(refused.body.error).toContain(attacker.address);
    expect(new Date(refused.body.blocked_until).getTime()).toBeGreaterThan(Date.now());
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The address's record: without the delegate too.
    expect((await create(await auctionBody(attacker)).expect(403)).body.code).toBe('taker_unfillable_limit');
    expect(await quotesOf(attacker.address)).toBe(before);
    // The organization's record: another wallet through the same integrator is refused as well.
    const accomplice = newWallet();
    const viaOrg = await create(await auctionBody(accomplice), await delegateFor(accomplice)).expect(403);
    expect(viaOrg.body).toMatchObject({ code: 'taker_unfillable_limit', limit: 'DUTCH_TAKER_UNFILLABLE_LIMIT' });
    expect(viaOrg.body.error).toContain(takerOrg);
    expect(await quotesOf(accomplice.address)).toBe(0);
  }, 300_000);

  it('the maker keeps bidding, and its own no-show on a taker that could pay is still its fade', async () => {
    const taker = newWallet();
    await payingTaker(s.h.chain, taker);
    const id = (await create(await auctionBody(taker)).expect(201)).body.quote.id as string;
    const award = await honestWins(id);
    // It could fill; it lets the window pass instead.
    expect(getAddress(award.award.filler)).toBe(honest.wallet.address);
    expect(await windowPasses(id)).toMatchObject({ faded: true, taker_unfillable: false, taker: taker.address.toLowerCase(), taker_organization_id: null });
    expect(await fadesOfHonest()).toMatchObject({ count: 1, blocked_until: expect.any(String) });
    const next = (await create(await auctionBody(taker)).expect(201)).body.quote.id as string;
    expect(
      (await request(s.app).post(`/api/quote/${next}/offer`).set(bearer(honest.token)).send({ buy_override_bps: 1, sell_override_bps: 1 }).expect(403)).body
        .code,
    ).toBe('maker_faded');
  }, 180_000);
});
