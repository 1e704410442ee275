import { type Hex } from 'viem';
import { mothershipAbi } from '../../../shared/chain/abis';
import { topics } from '../../../shared/events';
import { DutchRepository } from '../../../shared/dutch';
import { closeQuote, hashStreamToken } from '../../../shared/quotes';
import { parseDutchRequest } from '../../../shared/protocol';
import { chainDutchBody, endNow, LONG_COMPETE_MS, payingTaker, storedAward } from '../../support/dutch';
import { topicEvents } from '../../support/events';
import { buildApp, request } from '../../support/http';
import { startWorkers, type Workers } from '../../support/workers';
import { mineBlocks, openHarness, quoteState, runIndexer, waitFor, waitForHead, type Harness } from '../indexer/harness';

/**
 * A Dutch quote settles on the real mothership: the indexer sees DutchFilled and the quote is
 * filled (also when the expiry got there first: the chain wins); a reorg that removes the fill
 * returns the quote to its phase (docs/DUTCH.md, "Fills and reorgs").
 */
describe('Dutch fills on chain', () => {
  let h: Harness;
  let ix: Awaited<ReturnType<typeof runIndexer>>;
  let workers: Workers;
  let app: ReturnType<typeof buildApp>['app'];

  beforeAll(async () => {
    h = await openHarness();
    await h.register({ confirmations: 0 });
    ix = await runIndexer(h.env);
    app = buildApp(h.env).app;
    workers = startWorkers(h.env);
    // A taker that can pay: a winner that misses its window is then the winner's fade (not the taker's).
    await payingTaker(h.chain, h.chain.accounts[2]);
  }, 60_000);
  afterAll(async () => {
    await workers?.close();
    await ix?.stop();
    await h?.close();
  });

  const taker = () => h.chain.accounts[2];
  const maker = () => h.chain.accounts[3];

  /**
   * A Dutch quote over the chain's pair, awarded. With `bid` the maker's bid goes in during a long
   * competition that the test then ends (endNow), so the award cannot come before the bid;
   * without, the competition is short and ends by its own job.
   */
  async function auction(o: { bid?: boolean } = {}) {
    const body = await chainDutchBody(h.chain, taker(), { body: { compete_ms: o.bid ? LONG_COMPETE_MS : 400, exclusive_ms: 30_000 } });
    const res = await request(app).post('/api/quote').send(body).expect(201);
    const id: string = res.body.quote.id;
    if (o.bid) {
      await new DutchRepository(h.env.db).upsertBid(h.env.db, id, maker().address, 40, 10);
      await endNow(h.env, id, 'competition');
    }
    const d = await waitFor(
      'award',
      () => new DutchRepository(h.env.db).find(id),
      (r) => r?.award !== null,
    );
    return { id, body, d: d!, stream: topics.rfqStream(hashStreamToken(res.body.stream_token)) };
  }

  async function fill(a: Awaited<ReturnType<typeof auction>>) {
    const w = a.d.award as Record<string, string | number>;
    const award = storedAward(w);
    const chainNow = await h.chain.now();
    if (award.notBefore > chainNow) await h.chain.rpc('evm_setNextBlockTimestamp', [award.notBefore]);
    const call = {
      address: h.chain.addresses.mothership,
      abi: mothershipAbi,
      functionName: 'executeDutchFill',
      args: [parseDutchRequest(a.body.dutch_request, { now: 0 }), a.body.taker_signature as Hex, a.body.directions as number[], award, w.signature as Hex],
      account: h.chain.wallets[3].account,
    } as const;
    // Room in the gas limit: the devchain keeps wall-clock time, so the block that runs the fill
    // can be later than the one its gas was estimated on (a busy machine ran one out of gas).
    const gas = await h.chain.publicClient.estimateContractGas(call);
    const tx = await h.chain.wallets[3].writeContract({ ...call, gas: gas + gas / 2n });
    const receipt = await h.chain.publicClient.waitForTransactionReceipt({ hash: tx });
    expect(receipt.status).toBe('success');
    return tx;
  }

  it('the winner fills from the wallet its award names; the indexer marks the quote filled and the taker and bidder hear it once', async () => {
    const a = await auction({ bid: true });
    expect(a.d.dutch_phase).toBe('exclusive');
    expect(a.d.winner).toBe(maker().address);
    const tx = await fill(a);
    await mineBlocks(h.chain, 1);
    const q = await waitFor(
      'quote filled',
      () => quoteState(h, a.id),
      (s) => s.state === 'filled',
    );
    expect(q.fill_tx_hash).toBe(tx.toLowerCase());
    const results = await waitFor(
      'result',
      () => topicEvents(h.env, a.stream),
      (e) => e.some((x) => x.event === 'rfq_result'),
    );
    expect(results.filter((e) => e.event === 'rfq_result').map((e) => e.payload.state)).toEqual(['filled']);
    const bidder = await waitFor(
      'bidder result',
      () => topicEvents(h.env, topics.rfqMaker(maker().address)),
      (e) => e.some((x) => x.event === 'rfq_result'),
    );
    expect(bidder.filter((e) => e.event === 'rfq_result' && e.payload.quote_id === a.id)).toHaveLength(1);
    const settled: { premium: string }[] = await h.env.db.query(`SELECT package_premium::text AS premium FROM indexer_settlements WHERE quote_id = $1`, [a.id]);
    expect(settled).toHaveLength(1);
  }, 60_000);

  it('a fill racing the expiry: the chain wins and the quote is filled', async () => {
    const a = await auction();
    expect(a.d.dutch_phase).toBe('open');
    await closeQuote(h.env.db, a.id, 'expired');
    expect((await quoteState(h, a.id)).state).toBe('expired');
    await fill(a);
    await mineBlocks(h.chain, 1);
    await waitFor(
      'quote filled',
      () => quoteState(h, a.id),
      (s) => s.state === 'filled',
    );
  }, 60_000);

  it('a reorg that removes the fill returns the quote to its phase, open again', async () => {
    const a = await auction({ bid: true });
    await waitForHead(h);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');
    await fill(a);
    const tip = await waitForHead(h);
    await waitFor(
      'quote filled',
      () => quoteState(h, a.id),
      (s) => s.state === 'filled',
    );
    await h.chain.rpc('evm_revert', [snapshot]);
    await mineBlocks(h.chain, tip + 3 - (await h.chain.publicClient.getBlockNumber().then(Number)));
    const back = await waitFor(
      'reopened',
      () => quoteState(h, a.id),
      (s) => s.state === 'open',
    );
    expect(back).toEqual({ state: 'open', fill_tx_hash: null, closed_at: null });
    // The award's exclusive window (30 s) still runs: the quote is exclusive again, for its winner.
    expect((await new DutchRepository(h.env.db).find(a.id))?.dutch_phase).toBe('exclusive');
    const notices = await waitFor(
      'reorg notice',
      () => topicEvents(h.env, a.stream),
      (e) => e.filter((x) => x.event === 'rfq_result').length === 2,
    );
    expect(notices.filter((e) => e.event === 'rfq_result').map((e) => e.payload.state)).toEqual(['filled', 'open']);
  }, 60_000);
  /**
   * The indexer's decision on the quote's exclusive window. It decides on new blocks, so each look
   * mines one and waits for the indexer to have indexed it: a look per indexed block, not per
   * 40 ms, so a slow indexer (a busy machine, a reorg's re-sync) is not outrun by blocks it has
   * yet to read.
   */
  const outcome = (id: string, after = new Date(0)) =>
    waitFor(
      'exclusive window decided',
      async () => {
        await mineBlocks(h.chain, 1);
        await waitForHead(h);
        const rows: { faded: boolean; winner: string; decided_block: string; created_at: Date }[] = await h.env.db.query(
          `SELECT faded, winner, decided_block::text, created_at FROM dutch_exclusive_outcomes WHERE quote_id = $1`,
          [id],
        );
        return rows.filter((r) => new Date(r.created_at) > after);
      },
      (r) => r.length === 1,
      60_000,
    ).then((r) => r[0]);

  /** Moves the chain's time past the quote's exclusive end. */
  async function passWindow(id: string) {
    const d = (await new DutchRepository(h.env.db).find(id))!;
    const end = Math.ceil(new Date(d.exclusive_ends_at!).getTime() / 1000);
    const now = await h.chain.now();
    if (end >= now) await h.chain.rpc('evm_increaseTime', [end - now + 2]);
  }

  it('a winner that fills within its exclusive window records no fade once the chain passes the window', async () => {
    const a = await auction({ bid: true });
    await fill(a);
    await waitFor(
      'quote filled',
      () => quoteState(h, a.id),
      (s) => s.state === 'filled',
    );
    await passWindow(a.id);
    expect(await outcome(a.id)).toMatchObject({ faded: false, winner: maker().address });
  }, 120_000);

  it('a winner that lets its window pass records a fade; a reorg below the deciding block undoes it until the chain decides again', async () => {
    const a = await auction({ bid: true });
    await waitForHead(h);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');
    await passWindow(a.id);
    const first = await outcome(a.id);
    expect(first).toMatchObject({ faded: true, winner: maker().address });
    const tip = await waitForHead(h);
    await h.chain.rpc('evm_revert', [snapshot]);
    const reverted = new Date();
    // The new branch differs from the orphaned one (a transfer in its first block; empty blocks at
    // the same times would hash the same), is longer, and its time passes the window again.
    await passWindow(a.id);
    await h.chain.publicClient.waitForTransactionReceipt({ hash: await h.chain.wallets[0].sendTransaction({ to: h.chain.accounts[1].address, value: 1n }) });
    await mineBlocks(h.chain, tip + 3 - (await h.chain.publicClient.getBlockNumber().then(Number)));
    const again = await outcome(a.id, reverted);
    expect(again).toMatchObject({ faded: true, winner: maker().address });
    const reorgs: { reorgs: number }[] = await h.env.db.query(`SELECT reorgs FROM indexer_reorg_stats WHERE chain_id = $1`, [h.chain.chainId]);
    expect(reorgs[0].reorgs).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
