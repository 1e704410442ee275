import { parseEventLogs, zeroAddress } from 'viem';
import {
  bondDepositedEvent,
  bondVaultAbi,
  bondWithdrawalRequestedEvent,
  bondWithdrawnEvent,
  mockErc20Abi,
  optionPairAbi,
  orderCancelledEvent,
  orderFilledEvent,
  orderPlacedEvent,
  pairCreatedEvent,
  pairFactoryAbi,
  transferEvent,
} from '../../../shared/chain/abis';
import { DEV_BOND_WITHDRAWAL_DELAY_SECONDS, expectedAddresses } from '../../../dev/deploy';
import { encodeOptionId } from '../../../shared/protocol';
import type { TestChain } from '../../support/chain';
import { sharedTestChain } from '../../support/worker-chain';
import { revertName } from './reverts';

/** The fixture the indexer relies on: every event it decodes, produced by the real contracts. */
let chain: TestChain;

beforeAll(async () => {
  chain = await sharedTestChain();
});
afterAll(() => chain?.stop());

async function send(from: number, call: Parameters<TestChain['wallets'][number]['writeContract']>[0]) {
  const hash = await chain.wallets[from].writeContract(call);
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe('success');
  return receipt;
}

describe('reference deployment', () => {
  it('lands at the deterministic addresses with the pair created by the factory', async () => {
    expect(chain.addresses).toEqual(expectedAddresses());
    const logs = await chain.publicClient.getLogs({ address: chain.addresses.pairFactory, event: pairCreatedEvent, fromBlock: 0n });
    expect(logs.map((l) => l.args)).toEqual([
      { pair: chain.addresses.pair, token0: chain.addresses.weth, token1: chain.addresses.usdc, premiumToken: chain.addresses.usdc },
    ]);
    const factory = { address: chain.addresses.pairFactory, abi: pairFactoryAbi } as const;
    await expect(
      chain.publicClient.readContract({ ...factory, functionName: 'getPair', args: [chain.addresses.weth, chain.addresses.usdc, chain.addresses.usdc] }),
    ).resolves.toBe(chain.addresses.pair);
    await expect(chain.publicClient.readContract({ ...factory, functionName: 'mothership' })).resolves.toBe(chain.addresses.mothership);
  });

  it('faucet tokens have their names, decimals and a working faucet', async () => {
    const token = (address: `0x${string}`) => ({ address, abi: mockErc20Abi }) as const;
    const read = chain.publicClient.readContract;
    await expect(read({ ...token(chain.addresses.usdc), functionName: 'decimals' })).resolves.toBe(6);
    await expect(read({ ...token(chain.addresses.wbtc), functionName: 'symbol' })).resolves.toBe('WBTC');
    await send(4, { ...token(chain.addresses.meme), functionName: 'faucet' });
    await expect(read({ ...token(chain.addresses.meme), functionName: 'balanceOf', args: [chain.accounts[4].address] })).resolves.toBe(1_000_000n * 10n ** 18n);
  });
});

describe('OptionPair order book and ERC-6909 events', () => {
  const id = () => encodeOptionId({ option_type: 1, strike_wad: 2_500_000_000n, expiry_timestamp: 2_000_000_000, start_exercise_timestamp: 0 });
  const pair = () => ({ address: chain.addresses.pair, abi: optionPairAbi }) as const;

  it('placing, filling and cancelling emit the decoded events and mint to the buyer', async () => {
    const [owner, filler] = [chain.accounts[5].address, chain.accounts[6].address];
    const placed = await send(5, { ...pair(), functionName: 'placeOrder', args: [id(), false, 40_000_000n, 5n] });
    const [p] = parseEventLogs({ abi: [orderPlacedEvent], logs: placed.logs });
    expect(p.args).toEqual({ orderId: 1n, owner, id: id(), isBuy: false, price: 40_000_000n, amount: 5n });

    const filled = await send(6, { ...pair(), functionName: 'fillOrder', args: [1n, 3n] });
    const [f] = parseEventLogs({ abi: [orderFilledEvent], logs: filled.logs });
    expect(f.args).toEqual({ orderId: 1n, owner, filler, id: id(), amount: 3n, price: 40_000_000n, remaining: 2n });
    // A sell order's filler buys: the option is minted to them.
    const [t] = parseEventLogs({ abi: [transferEvent], logs: filled.logs });
    expect(t.args).toEqual({ caller: filler, sender: zeroAddress, receiver: filler, id: id(), amount: 3n });

    const cancelled = await send(5, { ...pair(), functionName: 'cancelOrder', args: [1n] });
    const [c] = parseEventLogs({ abi: [orderCancelledEvent], logs: cancelled.logs });
    expect(c.args).toEqual({ orderId: 1n, owner, remaining: 2n });
  });

  it('transfers move balances and emit Transfer with the caller', async () => {
    const [holder, receiver] = [chain.accounts[6].address, chain.accounts[7].address];
    const moved = await send(6, { ...pair(), functionName: 'transfer', args: [receiver, id(), 1n] });
    const [t] = parseEventLogs({ abi: [transferEvent], logs: moved.logs });
    expect(t.args).toEqual({ caller: holder, sender: holder, receiver, id: id(), amount: 1n });
    await expect(chain.publicClient.readContract({ ...pair(), functionName: 'balanceOf', args: [holder, id()] })).resolves.toBe(2n);
  });

  it('only the mothership mints outside the book', async () => {
    const mint = chain.publicClient.simulateContract({
      account: chain.accounts[5],
      ...pair(),
      functionName: 'mint',
      args: [chain.accounts[5].address, id(), 1n],
    });
    expect(await revertName(mint)).toBe('NotMothership');
  });
});

describe('BondVault', () => {
  it('holds deposits per maker and token; a withdrawal is requested, then paid out only after the delay', async () => {
    const maker = chain.accounts[8].address;
    const usdc = { address: chain.addresses.usdc, abi: mockErc20Abi } as const;
    const vault = { address: chain.addresses.bondVault, abi: bondVaultAbi } as const;
    await expect(chain.publicClient.readContract({ ...vault, functionName: 'withdrawalDelay' })).resolves.toBe(DEV_BOND_WITHDRAWAL_DELAY_SECONDS);
    await send(8, { ...usdc, functionName: 'faucet' });
    await send(8, { ...usdc, functionName: 'approve', args: [chain.addresses.bondVault, 500_000_000n] });
    const dep = await send(8, { ...vault, functionName: 'deposit', args: [chain.addresses.usdc, 500_000_000n] });
    expect(parseEventLogs({ abi: [bondDepositedEvent], logs: dep.logs })[0].args).toEqual({
      maker,
      token: chain.addresses.usdc,
      amount: 500_000_000n,
      balance: 500_000_000n,
    });
    // Nothing pending: nothing to withdraw; more than the bond cannot be requested.
    const simulate = (functionName: 'withdraw' | 'requestWithdrawal', args: readonly unknown[]) =>
      chain.publicClient.simulateContract({ account: chain.accounts[8], ...vault, functionName, args } as Parameters<
        TestChain['publicClient']['simulateContract']
      >[0]);
    expect(await revertName(simulate('withdraw', [chain.addresses.usdc]))).toBe('NoPendingWithdrawal');
    expect(await revertName(simulate('requestWithdrawal', [chain.addresses.usdc, 500_000_001n]))).toBe('InsufficientBond');

    const req = await send(8, { ...vault, functionName: 'requestWithdrawal', args: [chain.addresses.usdc, 200_000_000n] });
    const requested = parseEventLogs({ abi: [bondWithdrawalRequestedEvent], logs: req.logs })[0].args;
    const block = await chain.publicClient.getBlock({ blockNumber: req.blockNumber });
    expect(requested).toEqual({
      maker,
      token: chain.addresses.usdc,
      amount: 200_000_000n,
      balance: 500_000_000n,
      withdrawableAt: block.timestamp + DEV_BOND_WITHDRAWAL_DELAY_SECONDS,
    });
    await expect(chain.publicClient.readContract({ ...vault, functionName: 'pendingWithdrawal', args: [maker, chain.addresses.usdc] })).resolves.toBe(
      200_000_000n,
    );
    // Before the delay: refused, and the bond stays whole.
    expect(await revertName(simulate('withdraw', [chain.addresses.usdc]))).toBe('WithdrawalNotReady');
    await expect(chain.publicClient.readContract({ ...vault, functionName: 'bondOf', args: [maker, chain.addresses.usdc] })).resolves.toBe(500_000_000n);

    await chain.rpc('evm_increaseTime', [Number(DEV_BOND_WITHDRAWAL_DELAY_SECONDS)]);
    const wd = await send(8, { ...vault, functionName: 'withdraw', args: [chain.addresses.usdc] });
    expect(parseEventLogs({ abi: [bondWithdrawnEvent], logs: wd.logs })[0].args).toEqual({
      maker,
      token: chain.addresses.usdc,
      amount: 200_000_000n,
      balance: 300_000_000n,
    });
    await expect(chain.publicClient.readContract({ ...vault, functionName: 'bondOf', args: [maker, chain.addresses.usdc] })).resolves.toBe(300_000_000n);
    await expect(chain.publicClient.readContract({ ...vault, functionName: 'pendingWithdrawal', args: [maker, chain.addresses.usdc] })).resolves.toBe(0n);
  });
});
