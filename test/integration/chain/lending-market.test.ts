import { parseEventLogs, type TransactionReceipt } from 'viem';
import {
  collateralAddedEvent,
  collateralWithdrawnEvent,
  lendingMarketAbi,
  loanLiquidatedEvent,
  loanOpenedEvent,
  loanRepaidEvent,
  priceOracleAbi,
  priceUpdatedEvent,
} from '../../../shared/chain/abis';
import { DEV_LIQUIDATION_THRESHOLD_BPS } from '../../../dev/deploy';
import { lendingActions, type LendingActions } from '../../../dev/lending';
import type { TestChain } from '../../support/chain';
import { sharedTestChain } from '../../support/worker-chain';
import { revertName } from './reverts';

/** The reference lending market and its oracle: every event the loan read models are built from. */
let chain: TestChain;
let lend: LendingActions;
const WAD = 10n ** 18n;
const ETH = 10n ** 18n;
const USDC = 10n ** 6n;

beforeAll(async () => {
  chain = await sharedTestChain();
  lend = lendingActions(chain.publicClient, chain.addresses);
  await lend.setPrice(chain.wallets[0], chain.addresses.weth, 3000n * WAD);
  await lend.setPrice(chain.wallets[0], chain.addresses.usdc, WAD);
});
afterAll(() => chain?.stop());

const market = () => ({ address: chain.addresses.lendingMarket, abi: lendingMarketAbi }) as const;

async function lastReceipt(): Promise<TransactionReceipt> {
  const block = await chain.publicClient.getBlock({ includeTransactions: false });
  return chain.publicClient.getTransactionReceipt({ hash: block.transactions[0] });
}

async function openWethLoan(principalUsdc: bigint, collateralEth: bigint): Promise<bigint> {
  return lend.openLoan(chain.wallets[1], chain.wallets[2], {
    collateralToken: chain.addresses.weth,
    collateralAmount: collateralEth,
    debtToken: chain.addresses.usdc,
    principal: principalUsdc,
    rateBps: 500,
    maturity: (await chain.now()) + 30 * 86_400,
  });
}

describe('PriceOracle', () => {
  it('emits the price with the token decimals, and only its owner sets prices', async () => {
    await lend.setPrice(chain.wallets[0], chain.addresses.wbtc, 60_000n * WAD);
    const [e] = parseEventLogs({ abi: [priceUpdatedEvent], logs: (await lastReceipt()).logs });
    expect(e.args).toEqual({ token: chain.addresses.wbtc, priceWad: 60_000n * WAD, decimals: 8 });
    const call = chain.publicClient.simulateContract({
      account: chain.accounts[3],
      address: chain.addresses.priceOracle,
      abi: priceOracleAbi,
      functionName: 'setPrice',
      args: [chain.addresses.wbtc, 1n],
    });
    expect(await revertName(call)).toBe('NotOwner');
  });
});

describe('LendingMarket', () => {
  it('opens a loan with its full terms in LoanOpened', async () => {
    const loanId = await openWethLoan(1000n * USDC, 1n * ETH);
    const [e] = parseEventLogs({ abi: [loanOpenedEvent], logs: (await lastReceipt()).logs });
    expect(e.args).toMatchObject({
      loanId,
      borrower: chain.accounts[2].address,
      lender: chain.accounts[1].address,
      collateralToken: chain.addresses.weth,
      collateralAmount: ETH,
      debtToken: chain.addresses.usdc,
      principal: 1000n * USDC,
      rateBps: 500,
      liquidationThresholdBps: DEV_LIQUIDATION_THRESHOLD_BPS,
    });
    // 3000 x 0.8 / 1000 = 2.4, a hair less once a second or two of interest has accrued.
    const h = await lend.healthFactor(loanId);
    expect(h).toBeLessThanOrEqual((24n * WAD) / 10n);
    expect(h).toBeGreaterThan((2399n * WAD) / 1000n);
  });

  it('tops up, repays in part, withdraws, and repays in full returning the collateral', async () => {
    const loanId = await openWethLoan(1000n * USDC, 1n * ETH);
    await lend.addCollateral(chain.wallets[2], chain.addresses.weth, loanId, ETH / 2n);
    expect(parseEventLogs({ abi: [collateralAddedEvent], logs: (await lastReceipt()).logs })[0].args).toEqual({
      loanId,
      from: chain.accounts[2].address,
      amount: ETH / 2n,
      collateral: (3n * ETH) / 2n,
    });
    await lend.repay(chain.wallets[2], chain.addresses.usdc, loanId, 400n * USDC);
    const [r] = parseEventLogs({ abi: [loanRepaidEvent], logs: (await lastReceipt()).logs });
    expect(r.args.principalPaid + r.args.interestPaid).toBe(400n * USDC);
    expect(r.args.principalRemaining).toBe(1000n * USDC - r.args.principalPaid);

    await lend.withdrawCollateral(chain.wallets[2], loanId, ETH);
    expect(parseEventLogs({ abi: [collateralWithdrawnEvent], logs: (await lastReceipt()).logs })[0].args.collateral).toBe(ETH / 2n);

    await lend.repayAll(chain.wallets[2], chain.addresses.usdc, loanId);
    const logs = (await lastReceipt()).logs;
    expect(parseEventLogs({ abi: [loanRepaidEvent], logs })[0].args.principalRemaining).toBe(0n);
    expect(parseEventLogs({ abi: [collateralWithdrawnEvent], logs })[0].args).toEqual({
      loanId,
      to: chain.accounts[2].address,
      amount: ETH / 2n,
      collateral: 0n,
    });
    const [, , , , , , , , , , , state] = await chain.publicClient.readContract({ ...market(), functionName: 'loans', args: [loanId] });
    expect(state).toBe(2);
  });

  it('refuses to liquidate a healthy loan, and liquidates it once the collateral price falls', async () => {
    const loanId = await openWethLoan(2000n * USDC, 1n * ETH);
    const early = chain.publicClient.simulateContract({ account: chain.accounts[4], ...market(), functionName: 'liquidate', args: [loanId] });
    expect(await revertName(early)).toBe('Healthy');
    await lend.setPrice(chain.wallets[0], chain.addresses.weth, 2000n * WAD);
    expect(await lend.healthFactor(loanId)).toBeLessThan(WAD);
    await lend.liquidate(chain.wallets[4], chain.addresses.usdc, loanId);
    const [e] = parseEventLogs({ abi: [loanLiquidatedEvent], logs: (await lastReceipt()).logs });
    expect(e.args).toMatchObject({ loanId, liquidator: chain.accounts[4].address, principalRepaid: 2000n * USDC, collateralSeized: ETH });
    await lend.setPrice(chain.wallets[0], chain.addresses.weth, 3000n * WAD);
  });

  it('liquidates an overdue loan whose collateral has no price: maturity is checked before any price is read', async () => {
    // MEME is never priced on this chain: the health factor of a loan against it cannot be computed.
    // Close enough that the liquidation helper's minute of interest margin covers the overdue time.
    const maturity = (await chain.now()) + 20;
    const loanId = await lend.openLoan(chain.wallets[1], chain.wallets[2], {
      collateralToken: chain.addresses.meme,
      collateralAmount: 1000n * ETH,
      debtToken: chain.addresses.usdc,
      principal: 100n * USDC,
      rateBps: 500,
      maturity,
    });
    // Before maturity only an unhealthy loan may be liquidated, and without a price that cannot be told.
    // The oracle's errors decode with its ABI: the market bubbles its revert up.
    const early = chain.publicClient.simulateContract({
      account: chain.accounts[4],
      ...market(),
      abi: [...lendingMarketAbi, ...priceOracleAbi],
      functionName: 'liquidate',
      args: [loanId],
    });
    expect(await revertName(early)).toBe('NoPrice');
    // This test's own node (never the service's devchain) is moved past maturity.
    await chain.increaseTime(maturity - (await chain.now()) + 1);
    await lend.liquidate(chain.wallets[4], chain.addresses.usdc, loanId);
    const [e] = parseEventLogs({ abi: [loanLiquidatedEvent], logs: (await lastReceipt()).logs });
    expect(e.args).toMatchObject({ loanId, liquidator: chain.accounts[4].address, principalRepaid: 100n * USDC, collateralSeized: 1000n * ETH });
  });

  it('refuses a withdrawal that would leave the loan unhealthy, and one by anyone but the borrower', async () => {
    const loanId = await openWethLoan(1000n * USDC, 1n * ETH);
    const unhealthy = chain.publicClient.simulateContract({
      account: chain.accounts[2],
      ...market(),
      functionName: 'withdrawCollateral',
      args: [loanId, (ETH * 3n) / 4n],
    });
    expect(await revertName(unhealthy)).toBe('Unhealthy');
    const stranger = chain.publicClient.simulateContract({ account: chain.accounts[5], ...market(), functionName: 'withdrawCollateral', args: [loanId, 1n] });
    expect(await revertName(stranger)).toBe('NotBorrower');
  });
});
