import { parseEventLogs } from 'viem';
import { optionPairAbi, orderFilledEvent, orderIntentPlacedEvent } from '../../../shared/chain/abis';
import type { OrderIntent } from '../../../shared/protocol';
import type { TestChain } from '../../support/chain';
import { sharedTestChain } from '../../support/worker-chain';
import { revertName } from './reverts';

/**
 * OptionPair.fillOrder on an order placed from an intent (placeIntent) honours the intent: its
 * time window, its decaying minimum fill, its reward limits (a plain fill pays no reward), and it
 * fills at the premium decayed to the fill's block. Before, anyone could fill such an order at
 * any time, in any size, at premiumStart.
 */
let chain: TestChain;
const OWNER = 3;
const FILLER = 6;
let nonce = 0n;

beforeAll(async () => {
  chain = await sharedTestChain();
});
afterAll(() => chain?.stop());

const pair = () => ({ address: chain.addresses.pair, abi: optionPairAbi }) as const;

function intent(start: number, over: Partial<OrderIntent> = {}): OrderIntent {
  return {
    from: chain.accounts[OWNER].address,
    to: chain.addresses.pair,
    noncePrefix: 9n,
    nonce: ++nonce,
    options6909Contract: chain.addresses.pair,
    amount: 100n,
    fillerRewardMaxPerMintedUnit: 50n,
    fillerRewardMinPerMintedUnit: 0n,
    optionType: 0,
    startExecutionTimestamp: 0,
    expiryTimestamp: start + 30 * 86400,
    premiumStart: 1_000_000n,
    premiumEnd: 900_000n,
    premiumDecayRateBpsPerSecond: 10,
    strikeStart: 3000n * 10n ** 18n,
    strikeEnd: 3000n * 10n ** 18n,
    strikeDecayRateBpsPerSecond: 0,
    startMinFill: 40n,
    minFillDecayRatePerSecond: 1n,
    buyOrSell: 1,
    intentStartTime: start,
    intentExpiry: start + 1000,
    orderOnExpiry: 0,
    ...over,
  };
}

async function place(i: OrderIntent): Promise<bigint> {
  const hash = await chain.wallets[OWNER].writeContract({ ...pair(), functionName: 'placeIntent', args: [i] });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return parseEventLogs({ abi: [orderIntentPlacedEvent], logs: receipt.logs })[0].args.orderId;
}

/** Mines an empty block at `at`, so the next call runs at (or a second after) that time. */
async function mineAt(at: number): Promise<void> {
  await chain.rpc('evm_setNextBlockTimestamp', [at]);
  await chain.rpc('evm_mine');
}

const tryFill = (orderId: bigint, amount: bigint) =>
  chain.publicClient.simulateContract({ ...pair(), account: chain.accounts[FILLER], functionName: 'fillOrder', args: [orderId, amount] });

/** Fills in a block at `at`; answers the OrderFilled event. */
async function fillAt(orderId: bigint, amount: bigint, at: number) {
  await chain.rpc('evm_setNextBlockTimestamp', [at]);
  const hash = await chain.wallets[FILLER].writeContract({ ...pair(), functionName: 'fillOrder', args: [orderId, amount], gas: 500_000n });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return parseEventLogs({ abi: [orderFilledEvent], logs: receipt.logs })[0].args;
}

describe('OptionPair.fillOrder on an intent-placed order', () => {
  it("reverts outside the intent's window: before intentStartTime and after intentExpiry", async () => {
    const start = (await chain.now()) + 500;
    const orderId = await place(intent(start));
    expect(await revertName(tryFill(orderId, 100n))).toBe('IntentNotStarted');
    await mineAt(start + 1001 + 60);
    expect(await revertName(tryFill(orderId, 100n))).toBe('IntentExpired');
  });

  it('reverts below the decayed minimum fill, unless the fill takes the whole remainder', async () => {
    const start = (await chain.now()) + 10;
    const orderId = await place(intent(start, { startMinFill: 60n, minFillDecayRatePerSecond: 0n }));
    await mineAt(start + 5);
    expect(await revertName(tryFill(orderId, 59n))).toBe('BelowMinFill');
    const first = await fillAt(orderId, 60n, start + 20);
    expect(first).toMatchObject({ amount: 60n, remaining: 40n });
    // 40 left, below the minimum of 60: the remainder may be taken whole, not in part.
    expect(await revertName(tryFill(orderId, 39n))).toBe('BelowMinFill');
    expect(await fillAt(orderId, 40n, start + 30)).toMatchObject({ amount: 40n, remaining: 0n });
  });

  it('reverts when the intent asks for a filler reward a plain fill does not pay', async () => {
    const start = (await chain.now()) + 10;
    const orderId = await place(intent(start, { fillerRewardMinPerMintedUnit: 1n }));
    await mineAt(start + 5);
    expect(await revertName(tryFill(orderId, 100n))).toBe('RewardOutOfLimits');
  });

  it("inside the terms it fills at the premium decayed to the fill's block, never past premiumEnd", async () => {
    const start = (await chain.now()) + 10;
    // 10 bps of 1,000,000 a second: 1,000 a second, down to 900,000 after 100 s. The minimum fill decays 1 a second from 40.
    const orderId = await place(intent(start));
    const at = start + 25;
    const early = await fillAt(orderId, 15n, at);
    expect(early).toMatchObject({ amount: 15n, price: 1_000_000n - 25n * 1_000n, remaining: 85n, filler: chain.accounts[FILLER].address });
    const late = await fillAt(orderId, 10n, start + 500);
    expect(late).toMatchObject({ amount: 10n, price: 900_000n, remaining: 75n });
  });

  it('a plain book order (placeOrder) is filled as before, in any size', async () => {
    const hash = await chain.wallets[OWNER].writeContract({ ...pair(), functionName: 'placeOrder', args: [1n, false, 7n, 5n] });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    const orderId = (await chain.publicClient.readContract({ ...pair(), functionName: 'nextOrderId' })) - 1n;
    expect(receipt.status).toBe('success');
    expect(await fillAt(orderId, 1n, (await chain.now()) + 1)).toMatchObject({ amount: 1n, price: 7n, remaining: 4n });
  });
});
