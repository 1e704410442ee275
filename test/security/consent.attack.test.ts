import type { PrivateKeyAccount } from 'viem/accounts';
import { fillerConsentMessage } from '../../shared/dutch';
import { chainDutchBody, payingTaker } from '../support/dutch';
import { request } from '../support/http';
import { bearer, newWallet, signedKeyAdd, signIn, signStatement } from '../support/wallets';
import { openDutchStack, type DutchStack } from './dutch-stack';

/**
 * Issue #38, "consent for every wallet an action names". Before: org A's owner made org B's bot
 * wallet A's admin with A's signature alone; the fade lookup then resolved that wallet to A by
 * membership, so A's no-shows blocked B's key; and a bid could name any stranger as its
 * filler. Now the new admin signs too and a wallet that backs another organization's key is
 * refused, a bid's fades are its credential's own organization's, and a filler other than the
 * bidder is a wallet of the bidder's organization or signed its consent. Real stack: Hardhat
 * with the reference contracts, the API over HTTP, workers and the indexer deciding fades.
 */
describe('attack: naming a wallet that did not consent', () => {
  let s: DutchStack;
  let orgB: { id: string; name: string };
  let ownerB: PrivateKeyAccount;
  let botB: PrivateKeyAccount;
  let keyB: string;
  let ownerC: PrivateKeyAccount;
  let botC: PrivateKeyAccount;
  let keyC: string;
  let orgC: string;
  let orgA: { id: string; name: string };
  let ownerA: PrivateKeyAccount;
  let ownerAToken: string;
  /** A taker that can pay (balance and allowance): a missed window is its winner's fade. */
  const taker = newWallet();

  const members = async (orgId: string) =>
    ((await s.h.env.db.query(`SELECT lower(address) AS a FROM organization_members WHERE organization_id = $1`, [orgId])) as { a: string }[]).map((r) => r.a);
  const bid = (token: string, id: string, body: Record<string, unknown> = {}) =>
    request(s.app)
      .post(`/api/quote/${id}/offer`)
      .set(bearer(token))
      .send({ buy_override_bps: 10, sell_override_bps: 10, ...body });
  const bidsOn = async (id: string) =>
    s.h.env.db.query(`SELECT maker, filler, organization_id FROM dutch_bids WHERE quote_id = $1`, [id]) as Promise<
      { maker: string; filler: string; organization_id: string | null }[]
    >;

  /** An auction with a one-second exclusive window, competing `competeMs`. */
  async function auction(competeMs: number): Promise<string> {
    const body = await chainDutchBody(s.h.chain, taker, { body: { compete_ms: competeMs, exclusive_ms: 1000 } });
    return (await request(s.app).post('/api/quote').send(body).expect(201)).body.quote.id as string;
  }

  /** Lets the chain's time pass the quote's exclusive end and waits for the indexer's decision. */
  async function windowPasses(id: string): Promise<{ faded: boolean; winner: string; organization_id: string | null }> {
    const rows = (sql: string) => s.h.env.db.query(sql, [id]) as Promise<Record<string, unknown>[]>;
    const until = Date.now() + 60_000;
    for (;;) {
      const [q] = await rows(`SELECT winner, exclusive_ends_at FROM quotes WHERE id = $1`);
      if (q?.winner && q.exclusive_ends_at) {
        const end = Math.ceil(new Date(q.exclusive_ends_at as Date).getTime() / 1000);
        const now = await s.h.chain.now();
        if (end >= now) await s.h.chain.rpc('evm_increaseTime', [end - now + 2]);
        await s.h.chain.rpc('evm_mine', []);
        const [o] = await rows(`SELECT faded, winner, organization_id FROM dutch_exclusive_outcomes WHERE quote_id = $1`);
        if (o) return o as { faded: boolean; winner: string; organization_id: string | null };
      }
      if (Date.now() > until) throw new Error(`no decision on ${id}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    s = await openDutchStack({ DUTCH_FADE_LIMIT: '1', DUTCH_FADE_WINDOW: '86400', DUTCH_FADE_COOLDOWN: '3600', LOGIN_RATE_LIMIT: '1000' });
    await payingTaker(s.h.chain, taker);
    ownerB = newWallet();
    orgB = await s.ctx.services.identity.orgs.create({ kind: 'maker', name: `Victim makers ${Date.now()}`, owner: ownerB.address });
    botB = newWallet();
    const issued = await request(s.app)
      .post('/api/maker/keys')
      .set(bearer(await signIn(s.app, ownerB)))
      .send(await signedKeyAdd(ownerB, botB, { organization: orgB.id, name: 'victim bot' }))
      .expect(201);
    keyB = issued.body.secret as string;
    // A third organization's bot bids in the filler test, so B's record stays clean for the fade test.
    ownerC = newWallet();
    orgC = (await s.ctx.services.identity.orgs.create({ kind: 'maker', name: `Filler makers ${Date.now()}`, owner: ownerC.address })).id;
    botC = newWallet();
    keyC = (
      await request(s.app)
        .post('/api/maker/keys')
        .set(bearer(await signIn(s.app, ownerC)))
        .send(await signedKeyAdd(ownerC, botC, { organization: orgC, name: 'filler bot' }))
        .expect(201)
    ).body.secret as string;
    ownerA = newWallet();
    orgA = await s.ctx.services.identity.orgs.create({ kind: 'maker', name: `Attacking makers ${Date.now()}`, owner: ownerA.address });
    ownerAToken = await signIn(s.app, ownerA);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it("an admin transfer to another organization's bot wallet needs that wallet's own signature, and is refused (409 naming it) even with it", async () => {
    const statement = await signStatement(ownerA, { action: 'transfer_admin', member: botB.address, organization: orgA.id, name: orgA.name });
    // A's signature alone: the wallet never agreed.
    const alone = await request(s.app)
      .put('/api/maker/organization')
      .set(bearer(ownerAToken))
      .send({ new_admin: botB.address, ...statement })
      .expect(400);
    expect(alone.body).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ path: 'new_admin_signature' })] });
    // A's owner signing for the wallet itself.
    const forged = await request(s.app)
      .put('/api/maker/organization')
      .set(bearer(ownerAToken))
      .send({ new_admin: botB.address, ...statement, new_admin_signature: statement.signature })
      .expect(403);
    expect(forged.body).toMatchObject({ code: 'new_admin_signature_mismatch', details: [{ path: 'new_admin_signature' }] });
    // Even signed by the wallet, it backs B's key: it serves B.
    const cosigned = { new_admin: botB.address, ...statement, new_admin_signature: await botB.signMessage({ message: statement.message }) };
    const taken = await request(s.app).put('/api/maker/organization').set(bearer(ownerAToken)).send(cosigned).expect(409);
    expect(taken.body).toMatchObject({ code: 'wallet_backs_other_organization_key', details: [{ path: 'new_admin' }] });
    expect(taken.body.error).toContain(botB.address);
    expect(await members(orgA.id)).not.toContain(botB.address.toLowerCase());

    // A wallet that signs for itself and serves nobody else becomes the admin; the statement was not used up by the refusals.
    const next = newWallet();
    const ok = await signStatement(ownerA, { action: 'transfer_admin', member: next.address, organization: orgA.id, name: orgA.name });
    await request(s.app)
      .put('/api/maker/organization')
      .set(bearer(ownerAToken))
      .send({ new_admin: next.address, ...ok, new_admin_signature: await next.signMessage({ message: ok.message }) })
      .expect(200);
    expect(await members(orgA.id)).toContain(next.address.toLowerCase());
  });

  it("a bid's filler other than the bidder is a wallet of its organization or signed its consent; a stranger's address is refused and nothing is stored", async () => {
    const id = await auction(60_000);
    const stranger = newWallet();
    const bare = await bid(keyC, id, { filler: stranger.address }).expect(403);
    expect(bare.body).toMatchObject({ code: 'filler_consent_required', details: [{ path: 'filler_signature' }] });
    const message = fillerConsentMessage(id, botC.address, stranger.address);
    const wrong = await bid(keyC, id, { filler: stranger.address, filler_signature: await botC.signMessage({ message }) }).expect(403);
    expect(wrong.body).toMatchObject({ code: 'filler_signature_mismatch', details: [{ path: 'filler_signature' }] });
    // Signed for another quote: not this one.
    const elsewhere = await stranger.signMessage({ message: fillerConsentMessage(await auction(60_000), botC.address, stranger.address) });
    expect((await bid(keyC, id, { filler: stranger.address, filler_signature: elsewhere }).expect(403)).body.code).toBe('filler_signature_mismatch');
    expect(await bidsOn(id)).toEqual([]);

    const consented = await bid(keyC, id, { filler: stranger.address, filler_signature: await stranger.signMessage({ message }) }).expect(201);
    expect(consented.body.bid.filler).toBe(stranger.address);
    // A wallet B registered (its owner, a member) needs no signature.
    const own = await bid(keyC, id, { filler: ownerC.address }).expect(201);
    expect(own.body.bid.filler).toBe(ownerC.address);
    expect(await bidsOn(id)).toEqual([{ maker: botC.address, filler: ownerC.address, organization_id: orgC }]);
  }, 120_000);

  it("a key's fades are its own organization's: A's no-shows do not block B's key even when B's bot is listed in A, and B's own no-show is B's", async () => {
    // The state the old transfer could create (now only the operator can): B's bot listed as a member of A.
    await s.ctx.services.identity.orgs.addMember({ organization_id: orgA.id, address: botB.address, role: 'member' });
    // A member of A that bids and never fills.
    const griefer = newWallet();
    await s.ctx.services.identity.orgs.addMember({ organization_id: orgA.id, address: griefer.address, role: 'member' });
    const grieferToken = await signIn(s.app, griefer);

    const first = await auction(1500);
    await bid(grieferToken, first).expect(201);
    expect(await windowPasses(first)).toMatchObject({ faded: true, organization_id: orgA.id });
    expect((await bid(grieferToken, await auction(60_000)).expect(403)).body.code).toBe('maker_faded');

    // B's key: its organization is B, whatever A lists.
    const me = await request(s.app).get('/api/me').set(bearer(keyB)).expect(200);
    expect(me.body).toMatchObject({ organization_id: orgB.id, dutch_fades: { count: 0, blocked_until: null } });
    const second = await auction(1500);
    await bid(keyB, second).expect(201);
    expect(await bidsOn(second)).toEqual([{ maker: botB.address, filler: botB.address, organization_id: orgB.id }]);
    expect(await windowPasses(second)).toMatchObject({ faded: true, winner: botB.address, organization_id: orgB.id });
  }, 180_000);
});
