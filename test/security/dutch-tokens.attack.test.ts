import type { Express } from 'express';
import { NetworksService } from '../../shared/networks';
import type { TestChain } from '../support/chain';
import { sharedTestChain } from '../support/worker-chain';
import { dutchBody } from '../support/dutch';
import { buildApp, request } from '../support/http';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { newWallet } from '../support/wallets';

/**
 * Finding (issue #23, tokens): a Dutch request's `dutch_premium.token` and `tokens[]` were never
 * compared with the pair its intents name. A taker could sign a request whose premium is paid in
 * a worthless token (the devchain's MEME here) on the WETH / USDC pair: makers price it as a USDC
 * premium from the pair they see, the auction is awarded, and the fill settles in whatever the
 * request says. The request's tokens must now be the pair's own, read from the chain (or the
 * indexer's record of the pair); anything else is a 400 naming the field, and nothing is stored.
 */
describe("attack: a Dutch request whose tokens are not its pair's", () => {
  let chain: TestChain;
  let env: TestEnv;
  let app: Express;

  beforeAll(async () => {
    chain = await sharedTestChain();
    env = await createTestEnv();
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(chain.network);
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await chain?.stop();
  });

  const dutchCount = async () => Number((await env.db.query(`SELECT count(*)::int AS n FROM quotes WHERE offer_format = 'dutch_only'`))[0].n);

  /** A correctly signed request on the chain's WETH / USDC pair; `premiumToken` and `tokens` replace the pair's. */
  function signed(o: { premiumToken?: string; tokens?: { token0: string; token1: string; premium_token: string }[] } = {}) {
    const a = chain.addresses;
    const now = Math.floor(Date.now() / 1000);
    return dutchBody(newWallet(), {
      chainId: chain.chainId,
      mothership: a.mothership,
      pair: a.pair,
      request: {
        tokens: o.tokens ?? [{ token0: a.weth, token1: a.usdc, premium_token: a.usdc }],
        dutch_premium: {
          token: o.premiumToken ?? a.usdc,
          maker_pays_taker: false,
          start_premium: '100000000',
          end_premium: '200000000',
          decay_rate: '0',
          auction_start: now,
        },
      },
    });
  }

  async function refused(body: Record<string, unknown>, paths: string[]) {
    const before = await dutchCount();
    const res = await request(app).post('/api/quote').send(body).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect((res.body.details as { path: string }[]).map((d) => d.path).sort()).toEqual([...paths].sort());
    expect(await dutchCount()).toBe(before);
    return res;
  }

  it("a premium paid in another token than the pair's premium token is refused naming dutch_request.dutch_premium.token", async () => {
    const res = await refused(await signed({ premiumToken: chain.addresses.meme }), ['dutch_request.dutch_premium.token']);
    expect(res.body.details[0].message).toContain(chain.addresses.usdc);
  });

  it("a token list that is not the pair's triple is refused naming each wrong entry", async () => {
    const a = chain.addresses;
    await refused(await signed({ tokens: [{ token0: a.weth, token1: a.usdc, premium_token: a.meme }] }), ['dutch_request.tokens[0].premium_token']);
    await refused(await signed({ tokens: [{ token0: a.wbtc, token1: a.usdc, premium_token: a.usdc }] }), ['dutch_request.tokens[0].token0']);
    // The pair itself where a token belongs (what the Dutch demo used to send).
    await refused(await signed({ tokens: [{ token0: a.pair, token1: a.usdc, premium_token: a.usdc }] }), ['dutch_request.tokens[0].token0']);
    await refused(await signed({ premiumToken: a.meme, tokens: [{ token0: a.usdc, token1: a.weth, premium_token: a.meme }] }), [
      'dutch_request.dutch_premium.token',
      'dutch_request.tokens[0].token0',
      'dutch_request.tokens[0].token1',
      'dutch_request.tokens[0].premium_token',
    ]);
  });

  it("the pair's own tokens are accepted", async () => {
    const before = await dutchCount();
    await request(app)
      .post('/api/quote')
      .send(await signed())
      .expect(201);
    expect(await dutchCount()).toBe(before + 1);
  });
});
