import { maxUint256, type Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { mockErc20Abi } from '../../../shared/chain/abis';
import { localWalletClient } from '../../../shared/chain/clients';
import { Erc20FundsReader } from '../../../shared/chain/erc20-funds';
import { DutchRepository, leastOwedInWindow } from '../../../shared/dutch';
import { parseDutchRequest } from '../../../shared/protocol';
import { chainDutchBody, endNow, LONG_COMPETE_MS, payingTaker } from '../../support/dutch';
import { buildApp, request } from '../../support/http';
import { newWallet } from '../../support/wallets';
import { startWorkers, type Workers } from '../../support/workers';
import { mineBlocks, openHarness, runIndexer, waitFor, waitForHead, type Harness } from '../indexer/harness';

/**
 * The chain read behind "unfillable takers" (docs/DUTCH.md): when an awarded exclusive window
 * ends, the workers read with viem the paying taker's premium balance and its allowance to the
 * mothership, at one block, against the least the winner's fill could have cost it; the indexer
 * then records a missed window of a short taker against the taker, and of a taker that could pay
 * as the winner's fade. Real Hardhat node with the reference contracts, real Postgres and Redis.
 */
describe('the taker funds read at the end of a Dutch exclusive window', () => {
  let h: Harness;
  let ix: Awaited<ReturnType<typeof runIndexer>>;
  let workers: Workers;
  let app: ReturnType<typeof buildApp>['app'];
  const maker = () => h.chain.accounts[3];

  beforeAll(async () => {
    h = await openHarness();
    await h.register({ confirmations: 0 });
    ix = await runIndexer(h.env);
    app = buildApp(h.env).app;
    workers = startWorkers(h.env);
  }, 60_000);
  afterAll(async () => {
    await workers?.close();
    await ix?.stop();
    await h?.close();
  });

  const reader = () => new Erc20FundsReader(5000);
  const net = () => ({ chainId: h.chain.chainId, rpcUrl: h.chain.rpcUrl });

  it("reads an owner's ERC-20 balance and allowance to a spender at one block, as the chain has them", async () => {
    const owner = newWallet();
    const { usdc, mothership } = h.chain.addresses;
    const none = await reader().read(net(), usdc, owner.address, mothership);
    expect(none).toMatchObject({ balance: 0n, allowance: 0n });
    expect(none.blockNumber).toBe(await h.chain.publicClient.getBlockNumber({ cacheTime: 0 }));

    const approval = await payingTaker(h.chain, owner);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: approval });
    const read = await reader().read(net(), usdc, owner.address, mothership);
    const faucet = await h.chain.publicClient.readContract({ address: usdc, abi: mockErc20Abi, functionName: 'faucetAmount' });
    expect(read).toMatchObject({ balance: faucet, allowance: maxUint256 });
    expect(read.blockNumber).toBeGreaterThanOrEqual(receipt.blockNumber);
    const block = await h.chain.publicClient.getBlock({ blockNumber: read.blockNumber });
    expect(read.blockTimestamp).toBe(Number(block.timestamp));
    // Another spender: nothing allowed.
    expect((await reader().read(net(), usdc, owner.address, h.chain.addresses.bondVault)).allowance).toBe(0n);
  }, 60_000);

  /** An auction of `taker` over the chain's pair that `maker()` wins with 40 bps, a one-second window. */
  async function wonAuction(taker: LocalAccount, changes: Record<string, unknown> = {}) {
    const body = await chainDutchBody(h.chain, taker, { request: changes, body: { compete_ms: LONG_COMPETE_MS, exclusive_ms: 1000 } });
    const id: string = (await request(app).post('/api/quote').send(body).expect(201)).body.quote.id;
    await new DutchRepository(h.env.db).upsertBid(h.env.db, id, maker().address, 40, 40);
    await endNow(h.env, id, 'competition');
    return { id, body };
  }

  const checkOf = (id: string) =>
    waitFor(
      "the taker's funds read at the window's end",
      async () =>
        (await h.env.db.query(
          `SELECT taker, token, spender, owed::text, balance::text, allowance::text, short, block_number::text FROM dutch_taker_checks WHERE quote_id = $1`,
          [id],
        )) as Record<string, unknown>[],
      (r) => r.length === 1,
      30_000,
    ).then((r) => r[0]);

  /** Passes the chain's time beyond the window and waits for the indexer's decision, a block at a time. */
  async function decision(id: string) {
    const [q] = (await h.env.db.query(`SELECT exclusive_ends_at FROM quotes WHERE id = $1`, [id])) as { exclusive_ends_at: Date }[];
    const end = Math.ceil(new Date(q.exclusive_ends_at).getTime() / 1000);
    const now = await h.chain.now();
    if (end >= now) await h.chain.rpc('evm_increaseTime', [end - now + 2]);
    return waitFor(
      'the window decided',
      async () => {
        await mineBlocks(h.chain, 1);
        await waitForHead(h);
        return (await h.env.db.query(`SELECT faded, taker_unfillable, lower(taker) AS taker, winner FROM dutch_exclusive_outcomes WHERE quote_id = $1`, [
          id,
        ])) as Record<string, unknown>[];
      },
      (r) => r.length === 1,
      60_000,
    ).then((r) => r[0]);
  }

  it("records a taker without balance or allowance as short of the winner's least price, and its missed window as the taker's, not a fade", async () => {
    const taker = newWallet();
    const a = await wonAuction(taker);
    const check = await checkOf(a.id);
    const d = (await new DutchRepository(h.env.db).find(a.id))!;
    const owed = leastOwedInWindow(parseDutchRequest(a.body.dutch_request, { now: 0 }), d.award as { improvement_bps: string; not_before: number });
    expect(owed).toBeGreaterThan(0n);
    expect(check).toMatchObject({
      taker: taker.address,
      token: h.chain.addresses.usdc,
      spender: h.chain.addresses.mothership,
      owed: owed.toString(),
      balance: '0',
      allowance: '0',
      short: true,
    });
    expect(await decision(a.id)).toEqual({ faded: false, taker_unfillable: true, taker: taker.address.toLowerCase(), winner: maker().address });
  }, 120_000);

  it('a balance without an allowance is short too', async () => {
    const taker = newWallet();
    await payingTaker(h.chain, taker);
    const w = localWalletClient(h.chain.rpcUrl, taker, h.chain.chainId);
    const revoke: Hex = await w.writeContract({
      address: h.chain.addresses.usdc,
      abi: mockErc20Abi,
      functionName: 'approve',
      args: [h.chain.addresses.mothership, 0n],
    });
    await h.chain.publicClient.waitForTransactionReceipt({ hash: revoke });
    const a = await wonAuction(taker);
    expect(await checkOf(a.id)).toMatchObject({ allowance: '0', short: true });
    expect(Number((await checkOf(a.id)).balance)).toBeGreaterThan(0);
  }, 120_000);

  it("a taker that could pay is not short: the winner's missed window is its fade", async () => {
    const taker = newWallet();
    await payingTaker(h.chain, taker);
    const a = await wonAuction(taker);
    expect(await checkOf(a.id)).toMatchObject({ short: false, allowance: maxUint256.toString() });
    expect(await decision(a.id)).toMatchObject({ faded: true, taker_unfillable: false });
  }, 120_000);

  it("reads nothing when the maker pays the premium: the taker has nothing to pay, a missed window is the winner's", async () => {
    const now = await h.chain.now();
    const a = await wonAuction(newWallet(), {
      dutch_premium: {
        token: h.chain.addresses.usdc,
        maker_pays_taker: true,
        start_premium: '2000000',
        end_premium: '1000000',
        decay_rate: '0',
        auction_start: now,
      },
    });
    expect(await decision(a.id)).toMatchObject({ faded: true, taker_unfillable: false });
    expect(await h.env.db.query(`SELECT 1 FROM dutch_taker_checks WHERE quote_id = $1`, [a.id])).toEqual([]);
  }, 120_000);
});
