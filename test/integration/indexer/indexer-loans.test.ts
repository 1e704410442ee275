import { lendingActions, type LendingActions } from '../../../dev/lending';
import { healthWad, LOAN_AT_RISK_HEALTH_WAD } from '../../../shared/loans/health';
import { ExploreWatchers, feedTopic } from '../../../shared/explore';
import { LOAN_FEED_SUBJECT } from '../../../shared/loans';
import { hashStreamToken } from '../../../shared/platform/stream-tokens';
import { topicEvents } from '../../support/events';
import { expectSameAsFreshIndexer } from './fresh-indexer';
import { cursorOf, mineBlocks, openHarness, runIndexer, waitFor, waitForHead, type Harness } from './harness';
import { startWorkers, type Workers } from '../../support/workers';

/**
 * The lending market and its oracle, indexed from a real node: loans projected with their
 * health from the latest prices, every loan event kept with its loan's parties, live events on
 * the loan streams (an at-risk crossing after a price update among them), and a reorg that
 * orphans loan events and a price update, after which every table equals a fresh indexer's.
 */
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
/** The workers fan a subject's indexed events out to the stream tokens watching it. */
let workers: Workers;
let lend: LendingActions;
const WAD = 10n ** 18n;
const ETH = 10n ** 18n;
const USDC = 10n ** 6n;
const STREAM_TOKEN = 'loan-stream-token-of-this-test-0123456789abcdef';
const streamHash = hashStreamToken(STREAM_TOKEN);

interface LoanRow {
  loan_id: string;
  state: string;
  collateral_amount: string;
  principal_outstanding: string;
  interest_paid: string;
  health_wad: string | null;
}
const loanRow = async (loanId: bigint): Promise<LoanRow | undefined> =>
  (
    (await h.env.db.query(
      `SELECT loan_id::text, state, collateral_amount::text, principal_outstanding::text, interest_paid::text, health_wad::text FROM indexer_loans WHERE chain_id = 31337 AND loan_id = $1`,
      [loanId.toString()],
    )) as LoanRow[]
  )[0];
const eventKinds = async (loanId: bigint): Promise<{ kind: string; borrower: string; lender: string }[]> =>
  h.env.db.query(`SELECT kind, borrower, lender FROM indexer_loan_events WHERE chain_id = 31337 AND loan_id = $1 ORDER BY block_number, log_index`, [
    loanId.toString(),
  ]);

const openWethLoan = async (principal: bigint, collateral: bigint) =>
  lend.openLoan(h.chain.wallets[1], h.chain.wallets[2], {
    collateralToken: h.chain.addresses.weth,
    collateralAmount: collateral,
    debtToken: h.chain.addresses.usdc,
    principal,
    rateBps: 500,
    maturity: (await h.chain.now()) + 30 * 86_400,
  });

beforeAll(async () => {
  h = await openHarness();
  lend = lendingActions(h.chain.publicClient, h.chain.addresses);
  await lend.setPrice(h.chain.wallets[0], h.chain.addresses.weth, 3000n * WAD);
  await lend.setPrice(h.chain.wallets[0], h.chain.addresses.usdc, WAD);
  // Confirmations > 0: new blocks are followed block by block (realtime), which is what publishes live events.
  await h.register({ confirmations: 2 });
  // A watcher from before any block: the workers publish every loan event once to the network's feed topic.
  await new ExploreWatchers(h.env.redis, h.env.config.REDIS_PREFIX).watch('loan', 31337, LOAN_FEED_SUBJECT, streamHash, Date.now() + 3_600_000);
  workers = startWorkers(h.env);
  ix = await runIndexer(h.env);
  await mineBlocks(h.chain, 3);
  await waitForHead(h);
}, 60_000);

afterAll(async () => {
  await ix?.stop();
  await workers?.close();
  await h?.close();
});

describe('loan indexing', () => {
  it('projects a loan through top-up, partial repayment and withdrawal, with the health the prices give it', async () => {
    const loanId = await openWethLoan(1000n * USDC, ETH);
    await lend.addCollateral(h.chain.wallets[2], h.chain.addresses.weth, loanId, ETH / 2n);
    await lend.repay(h.chain.wallets[2], h.chain.addresses.usdc, loanId, 400n * USDC);
    await lend.withdrawCollateral(h.chain.wallets[2], loanId, ETH / 4n);
    await waitForHead(h);

    const [, , , , collateral, principal, , , thresholdBps] = await h.chain.publicClient.readContract({
      address: h.chain.addresses.lendingMarket,
      abi: (await import('../../../shared/chain/abis')).lendingMarketAbi,
      functionName: 'loans',
      args: [loanId],
    });
    const row = await loanRow(loanId);
    const expected = healthWad(
      { collateral_amount: collateral, principal_outstanding: principal, threshold_bps: thresholdBps },
      { price_wad: 3000n * WAD, decimals: 18 },
      { price_wad: WAD, decimals: 6 },
    );
    expect(row).toMatchObject({
      state: 'active',
      collateral_amount: collateral.toString(),
      principal_outstanding: principal.toString(),
      health_wad: expected!.toString(),
    });
    // Interest first: what the 400 paid beyond principal.
    expect(BigInt(row!.interest_paid) + 1000n * USDC - principal).toBe(400n * USDC);
    const borrower = h.chain.accounts[2].address;
    const lender = h.chain.accounts[1].address;
    expect(await eventKinds(loanId)).toEqual(['opened', 'collateral_added', 'repaid', 'collateral_withdrawn'].map((kind) => ({ kind, borrower, lender })));
  });

  it('re-values loans on a price update, announces the at-risk crossing on the loan stream, and closes the loan on liquidation', async () => {
    const loanId = await openWethLoan(2000n * USDC, ETH);
    await waitForHead(h);
    expect(BigInt((await loanRow(loanId))!.health_wad!)).toBeGreaterThan(LOAN_AT_RISK_HEALTH_WAD);

    // 1 WETH at 2600 x 0.8 / 2000 = 1.04: at risk, not yet liquidatable.
    await lend.setPrice(h.chain.wallets[0], h.chain.addresses.weth, 2600n * WAD);
    await waitForHead(h);
    expect((await loanRow(loanId))!.health_wad).toBe('1040000000000000000');
    const crossing = await waitFor(
      'at-risk crossing on the loan stream',
      () => topicEvents(h.env, feedTopic('loan', 31337, LOAN_FEED_SUBJECT)),
      (es) => es.some((e) => e.payload.event === 'health' && e.payload.loan_id === loanId.toString()),
    );
    expect(crossing.find((e) => e.payload.event === 'health' && e.payload.loan_id === loanId.toString())!.payload).toMatchObject({
      chain_id: 31337,
      crossed: 'at_risk',
      cause: 'price_update',
      loan: `31337-${loanId}`,
      health_after: '1.04',
    });
    const stream = await topicEvents(h.env, feedTopic('loan', 31337, LOAN_FEED_SUBJECT));
    expect(stream.some((e) => e.payload.event === 'price' && e.payload.price_usd === '2600')).toBe(true);

    await lend.setPrice(h.chain.wallets[0], h.chain.addresses.weth, 2000n * WAD);
    await lend.liquidate(h.chain.wallets[4], h.chain.addresses.usdc, loanId);
    await waitForHead(h);
    expect(await loanRow(loanId)).toMatchObject({ state: 'liquidated', collateral_amount: '0', principal_outstanding: '0', health_wad: null });
    const live = await waitFor(
      'liquidation on the loan stream',
      () => topicEvents(h.env, feedTopic('loan', 31337, LOAN_FEED_SUBJECT)),
      (es) => es.some((e) => e.payload.event === 'loan' && e.payload.kind === 'liquidated'),
    );
    expect(live.find((e) => e.payload.kind === 'liquidated')!.payload).toMatchObject({
      loan_id: loanId.toString(),
      actor: h.chain.accounts[4].address,
      borrower: h.chain.accounts[2].address,
    });
    // seq grows by one per event on the topic.
    expect(live.map((e) => e.seq)).toEqual(live.map((_, i) => i + 1));
    await lend.setPrice(h.chain.wallets[0], h.chain.addresses.weth, 3000n * WAD);
  });

  it('rolls back orphaned loan events and a price update on a reorg, ending where a fresh indexer ends', async () => {
    const kept = await openWethLoan(1000n * USDC, ETH);
    const forkAt = await waitForHead(h);
    const before = await loanRow(kept);
    const snapshot = await h.chain.rpc<string>('evm_snapshot');

    await lend.addCollateral(h.chain.wallets[2], h.chain.addresses.weth, kept, ETH);
    await lend.repay(h.chain.wallets[2], h.chain.addresses.usdc, kept, 100n * USDC);
    await lend.setPrice(h.chain.wallets[0], h.chain.addresses.weth, 1500n * WAD);
    const orphaned = await openWethLoan(500n * USDC, ETH);
    const orphanTip = await waitForHead(h);
    expect(await loanRow(orphaned)).toBeDefined();
    expect((await loanRow(kept))!.collateral_amount).toBe((2n * ETH).toString());

    await h.chain.rpc('evm_revert', [snapshot]);
    await mineBlocks(h.chain, orphanTip - forkAt + 2);
    await waitFor(
      'the new chain indexed',
      async () => ({ cursor: await cursorOf(h.env, 31337), head: await h.chain.rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false]) }),
      (v) => v.cursor?.block_hash === v.head.hash,
    );

    expect(await loanRow(orphaned)).toBeUndefined();
    expect(await loanRow(kept)).toEqual(before);
    const notice = await waitFor(
      'reorg notice on the loan stream',
      () => topicEvents(h.env, feedTopic('loan', 31337, LOAN_FEED_SUBJECT)),
      (es) => es.some((e) => e.payload.event === 'reorg'),
    );
    expect(notice.find((e) => e.payload.event === 'reorg')!.payload).toMatchObject({ chain_id: 31337, ancestor_block: forkAt });
    // Then a fresh snapshot of the rolled-back state.
    const fresh = await waitFor(
      'the snapshot after the reorg',
      () => topicEvents(h.env, feedTopic('loan', 31337, LOAN_FEED_SUBJECT)),
      (es) => es.some((e) => e.event === 'explore_loan_snapshot'),
    );
    const snap = fresh.find((e) => e.event === 'explore_loan_snapshot')!;
    expect(snap.seq).toBeGreaterThan(fresh.find((e) => e.payload.event === 'reorg')!.seq);
    expect(snap.payload).toMatchObject({ reason: 'reorg', chain_id: 31337, block: { number: expect.any(Number) } });
    await expectSameAsFreshIndexer(h, { addresses: [h.chain.accounts[2].address] });
  });
});
