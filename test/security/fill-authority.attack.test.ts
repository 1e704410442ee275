import { dutchFillArgs } from '../../client/src';
import { fillAuthorityAbi, mothershipAbi } from '../../shared/chain/abis';
import { revertName } from '../integration/chain/reverts';
import { request } from '../support/http';
import { bearer } from '../support/wallets';
import { openDutchStack, type DutchStack, type StackMaker } from './dutch-stack';

/**
 * Issue #23, "fill authority": a Dutch request may name a fill authority (KYC), an
 * IFillAuthority contract. Before, the API forced it to zero and the mothership took it for the
 * only allowed caller. Now the API checks on create that it is such a contract, asks it before
 * accepting each bid (a maker, or the filler its bid names, that it does not allow gets 403 and
 * nothing is stored, so an award only names an accepted filler), and the mothership lets only
 * allowed callers fill. Real stack: Hardhat with the devchain's AllowlistFillAuthority, the API
 * over HTTP, the workers and the indexer.
 */
describe("attack: filling or bidding past a Dutch request's fill authority", () => {
  let s: DutchStack;
  let allowed: StackMaker;
  let stranger: StackMaker;

  beforeAll(async () => {
    s = await openDutchStack();
    allowed = await s.maker();
    stranger = await s.maker();
    // The authority's owner (the devchain deployer) allows one maker only.
    const hash = await s.h.chain.wallets[0].writeContract({
      address: s.h.chain.addresses.fillAuthority,
      abi: fillAuthorityAbi,
      functionName: 'allowFiller',
      args: [allowed.wallet.address],
    });
    await s.h.chain.publicClient.waitForTransactionReceipt({ hash });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  const dutchQuotes = async () => Number((await s.h.env.db.query(`SELECT count(*)::int AS n FROM quotes WHERE offer_format = 'dutch_only'`))[0].n);
  const bidsOn = async (id: string) => s.h.env.db.query(`SELECT maker FROM dutch_bids WHERE quote_id = $1`, [id]) as Promise<{ maker: string }[]>;

  it('refuses a required_authority that is no IFillAuthority contract (no code, or no isAllowedFiller), naming the field, storing nothing', async () => {
    const before = await dutchQuotes();
    for (const authority of [stranger.wallet.address, s.h.chain.addresses.pair]) {
      const res = await request(s.app)
        .post('/api/quote')
        .send(await s.auctionBody({ requiredAuthority: authority }))
        .expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ path: 'dutch_request.required_authority' })] });
    }
    expect(await dutchQuotes()).toBe(before);
  });

  it('a maker the authority does not allow is refused with 403 filler_not_allowed, and so is an allowed maker naming a disallowed filler; nothing is stored', async () => {
    const a = await s.createAuction({ requiredAuthority: s.h.chain.addresses.fillAuthority, competeMs: 60_000 });
    const refused = await request(s.app)
      .post(`/api/quote/${a.id}/offer`)
      .set(bearer(stranger.token))
      .send({ buy_override_bps: 900, sell_override_bps: 900 })
      .expect(403);
    expect(refused.body).toMatchObject({
      code: 'filler_not_allowed',
      details: [{ path: 'filler', message: expect.stringContaining(s.h.chain.addresses.fillAuthority) }],
    });
    expect(refused.body.error).toContain(stranger.wallet.address);
    const proxied = await request(s.app)
      .post(`/api/quote/${a.id}/offer`)
      .set(bearer(allowed.token))
      .send({ buy_override_bps: 900, sell_override_bps: 900, filler: stranger.wallet.address })
      .expect(403);
    expect(proxied.body.code).toBe('filler_not_allowed');
    expect(await bidsOn(a.id)).toEqual([]);
  });

  it('a maker the authority does not allow cannot bid through an allowed filler: 403 naming maker, nothing stored (issue #38)', async () => {
    const a = await s.createAuction({ requiredAuthority: s.h.chain.addresses.fillAuthority, competeMs: 60_000 });
    const res = await request(s.app)
      .post(`/api/quote/${a.id}/offer`)
      .set(bearer(stranger.token))
      .send({ buy_override_bps: 900, sell_override_bps: 900, filler: allowed.wallet.address })
      .expect(403);
    expect(res.body).toMatchObject({
      code: 'filler_not_allowed',
      details: [{ path: 'maker', message: expect.stringContaining(s.h.chain.addresses.fillAuthority) }],
    });
    expect(res.body.error).toContain(stranger.wallet.address);
    expect(await bidsOn(a.id)).toEqual([]);
  });

  it('an allowed maker wins and fills; a disallowed address calling executeDutchFill with the award reverts on chain', async () => {
    const a = await s.createAuction({ requiredAuthority: s.h.chain.addresses.fillAuthority });
    await request(s.app).post(`/api/quote/${a.id}/offer`).set(bearer(stranger.token)).send({ buy_override_bps: 900, sell_override_bps: 900 }).expect(403);
    const accepted = await request(s.app)
      .post(`/api/quote/${a.id}/offer`)
      .set(bearer(allowed.token))
      .send({ buy_override_bps: 30, sell_override_bps: 30 })
      .expect(201);
    expect(accepted.body.bid.filler).toBe(allowed.wallet.address);
    const notice = await s.winnerNotice(allowed.wallet.address, a.id);
    expect(notice.payload.award.filler).toBe(allowed.wallet.address);
    expect(notice.payload.dutch_request.required_authority).toBe(s.h.chain.addresses.fillAuthority);

    // The stranger, with the public award in hand, cannot fill at any price: the authority refuses it.
    const copied = await s.publicAward(a.id);
    await s.afterNotBefore(copied);
    const call = { address: s.h.chain.addresses.mothership, abi: mothershipAbi, functionName: 'executeDutchFill', args: dutchFillArgs(copied) } as const;
    expect(await revertName(s.h.chain.publicClient.simulateContract({ ...call, account: stranger.wallet }))).toBe('AuthorityRequired');
    // Sent for real, the node refuses it with the same revert (AuthorityRequired's selector) and nothing settles.
    await expect(stranger.send.writeContract({ ...call, gas: 3_000_000n })).rejects.toThrow(/0xf2880218/);
    const signed = copied.dutch_request;
    const spent = await s.h.chain.publicClient.readContract({
      address: s.h.chain.addresses.mothership,
      abi: mothershipAbi,
      functionName: 'dutchNonceUsed',
      args: [s.h.chain.accounts[2].address, BigInt(signed.taker_nonce)],
    });
    expect(spent).toBe(false);

    const { receipt, event } = await s.fill(allowed.send, notice.payload);
    expect(receipt.status).toBe('success');
    expect(event.args).toMatchObject({ filler: allowed.wallet.address, exclusive: true });
    await s.filledQuote(a.id, receipt.transactionHash);
  }, 90_000);

  it('a request without a fill authority is not asked: any maker bids', async () => {
    const a = await s.createAuction({ competeMs: 60_000 });
    await request(s.app).post(`/api/quote/${a.id}/offer`).set(bearer(stranger.token)).send({ buy_override_bps: 1, sell_override_bps: 1 }).expect(201);
    expect((await bidsOn(a.id)).map((b) => b.maker)).toEqual([stranger.wallet.address]);
  });
});
