import { decodeFunctionData, type Hex } from 'viem';
import { dutchFillArgs } from '../../client/src';
import { mothershipAbi } from '../../shared/chain/abis';
import { dutchPremiumAt, improvedPremium, parseDutchRequest } from '../../shared/protocol';
import { bearer } from '../support/wallets';
import { request } from '../support/http';
import { openDutchStack, type DutchStack, type Fillable } from './dutch-stack';

/**
 * Issue #23, "the exclusive salt is a bearer token". The award used to commit to a salt and the
 * mothership gave the winner's price to whoever showed its preimage, so an outsider holding the
 * salt (or reading it from the winner's own pending transaction) filled as the winner. The award
 * now names the winner's filler address and the mothership compares it with msg.sender: an
 * outsider with every byte the winner has (the public award, the winner's calldata lifted from
 * the mempool) fills only at the override price, `exclusive = false`; the winner gets its price.
 */
describe('attack: a copied Dutch award during the exclusive window', () => {
  let s: DutchStack;

  beforeAll(async () => {
    s = await openDutchStack();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  /** An auction that maker `winner` wins with a 40 bps improvement on the taker's (buy) side. */
  async function wonAuction() {
    const winner = await s.maker();
    const a = await s.createAuction();
    await request(s.app).post(`/api/quote/${a.id}/offer`).set(bearer(winner.token)).send({ buy_override_bps: 40, sell_override_bps: 10 }).expect(201);
    const notice = await s.winnerNotice(winner.wallet.address, a.id);
    return { winner, a, notice };
  }

  const override = () => s.h.chain.publicClient.readContract({ address: s.h.chain.addresses.mothership, abi: mothershipAbi, functionName: 'dutchOverrideBps' });

  /** The premium a fill in a block at `at` pays, improved by `bps`. */
  function priceAt(p: Fillable, at: number, bps: bigint): bigint {
    const request = parseDutchRequest(p.dutch_request, { now: 0 });
    return improvedPremium(dutchPremiumAt(request.dutchPremium, request.auctionEnd, at), request.dutchPremium.makerPaysTaker, bps);
  }

  it('an outsider front-running the winner with its exact calldata from the mempool pays the override price, not the exclusive one', async () => {
    const { winner, a, notice } = await wonAuction();
    const outsider = await s.fundedWallet();
    // What the outsider holds: the public award from the feed, identical to the winner's own.
    const copied = await s.publicAward(a.id);
    expect(copied.award).toEqual(notice.payload.award);
    expect(copied.award.filler).toBe(winner.wallet.address);

    const chain = s.h.chain;
    await s.afterNotBefore(copied);
    await chain.rpc('evm_setAutomine', [false]);
    let winnerTx: Hex;
    let snipeTx: Hex;
    try {
      winnerTx = await winner.send.writeContract({
        address: chain.addresses.mothership,
        abi: mothershipAbi,
        functionName: 'executeDutchFill',
        args: dutchFillArgs(notice.payload),
        gas: 3_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      });
      // The outsider watches the mempool, lifts the winner's calldata byte for byte and outbids its tip.
      const pending = await chain.rpc<{ transactions: { hash: Hex; to: string | null; input: Hex }[] }>('eth_getBlockByNumber', ['pending', true]);
      const seen = pending.transactions.find((t) => t.hash === winnerTx);
      expect(seen?.to?.toLowerCase()).toBe(chain.addresses.mothership.toLowerCase());
      expect(decodeFunctionData({ abi: mothershipAbi, data: seen!.input }).functionName).toBe('executeDutchFill');
      snipeTx = await outsider.send.sendTransaction({
        to: chain.addresses.mothership,
        data: seen!.input,
        gas: 3_000_000n,
        maxPriorityFeePerGas: 50_000_000_000n,
      });
      await chain.rpc('evm_mine');
    } finally {
      await chain.rpc('evm_setAutomine', [true]);
    }

    const snipe = s.filled(await chain.publicClient.waitForTransactionReceipt({ hash: snipeTx }));
    const beaten = await chain.publicClient.waitForTransactionReceipt({ hash: winnerTx });
    // The outsider's transaction went first (the higher tip) and filled inside the exclusive window...
    expect(snipe.receipt.status).toBe('success');
    expect(snipe.receipt.transactionIndex).toBeLessThan(beaten.transactionIndex);
    const at = await s.blockTime(snipe.receipt);
    expect(at).toBeLessThanOrEqual(copied.award.exclusive_end);
    // ...but not as the winner: the override price (better for the taker) and exclusive false.
    expect(snipe.event.args).toMatchObject({ filler: outsider.wallet.address, exclusive: false, premium: priceAt(copied, at, 40n + (await override())) });
    expect(snipe.event.args.premium).not.toBe(priceAt(copied, at, 40n));
    // The request settles once: the winner's own transaction, mined after it, reverts.
    expect(beaten.status).toBe('reverted');
    await s.filledQuote(a.id, snipeTx);
  }, 90_000);

  it('an outsider calling executeDutchFill with the award copied from the public feed pays the override price, exclusive false', async () => {
    const { winner, a } = await wonAuction();
    const outsider = await s.fundedWallet();
    const copied = await s.publicAward(a.id);
    expect(copied.award.filler).toBe(winner.wallet.address);
    const { receipt, event } = await s.fill(outsider.send, copied);
    expect(receipt.status).toBe('success');
    const at = await s.blockTime(receipt);
    expect(at).toBeLessThanOrEqual(copied.award.exclusive_end);
    expect(event.args).toMatchObject({ filler: outsider.wallet.address, exclusive: false, premium: priceAt(copied, at, 40n + (await override())) });
    await s.filledQuote(a.id, receipt.transactionHash);
  }, 90_000);

  it('the winner, filling from the wallet its award names, gets its exclusive price', async () => {
    const { winner, a, notice } = await wonAuction();
    const { receipt, event } = await s.fill(winner.send, notice.payload);
    expect(receipt.status).toBe('success');
    const at = await s.blockTime(receipt);
    expect(at).toBeLessThanOrEqual(notice.payload.award.exclusive_end);
    expect(event.args).toMatchObject({ filler: winner.wallet.address, exclusive: true, premium: priceAt(notice.payload, at, 40n) });
    await s.filledQuote(a.id, receipt.transactionHash);
  }, 90_000);
});
