import { parseEther, parseEventLogs, type Address, type Hex, type TransactionReceipt } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { dutchFillArgs, type AwardJson, type DutchRequestJson } from '../../client/src';
import { dutchFilledEvent, mothershipAbi } from '../../shared/chain/abis';
import { localWalletClient } from '../../shared/chain/clients';
import { topics } from '../../shared/events';
import { hashStreamToken } from '../../shared/quotes';
import { openHarness, quoteState, runIndexer, waitFor, type Harness } from '../integration/indexer/harness';
import { chainDutchBody } from '../support/dutch';
import { eventually, topicEvents, type SeenEvent } from '../support/events';
import { buildApp, request } from '../support/http';
import { newWallet, signIn } from '../support/wallets';
import { startWorkers } from '../support/workers';

/** A maker of the stack's maker organization: its wallet (funded for gas), its session, its wallet client. */
export interface StackMaker {
  wallet: PrivateKeyAccount;
  token: string;
  send: ReturnType<typeof localWalletClient>;
}

/** The payload a Dutch quote's fillable phase carries (what every maker and the public feed see). */
export type Fillable = Record<string, unknown> & {
  quote_id: string;
  dutch_request: DutchRequestJson;
  taker_signature: string;
  directions: number[];
  award: AwardJson;
};

/**
 * The real Dutch stack an attacker faces: a Hardhat node with the reference contracts, the API
 * over HTTP, the workers (awards, openings, expiry) and the indexer (fills), on one database.
 */
export async function openDutchStack(envOverrides: Record<string, string> = {}) {
  const h: Harness = await openHarness(envOverrides);
  await h.register({ confirmations: 0 });
  const ix = await runIndexer(h.env);
  const { app, ctx } = buildApp(h.env);
  const workers = startWorkers(h.env);
  // Bids need the premium token's fill bond and the check fails closed: these attacks are about
  // awards and authorities, so the operator asks no bond (test/security/bonds.attack.test.ts does).
  await ctx.services.networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '0', fill_bond_amount: '0' } });
  const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: `Dutch attack makers ${Date.now()}`, owner: newWallet().address });
  const funder = h.chain.wallets[9];

  /** A fresh wallet with gas (not a maker: the outsider). */
  async function fundedWallet(): Promise<{ wallet: PrivateKeyAccount; send: ReturnType<typeof localWalletClient> }> {
    const wallet = newWallet();
    const hash = await funder.sendTransaction({ to: wallet.address, value: parseEther('1') });
    await h.chain.publicClient.waitForTransactionReceipt({ hash });
    return { wallet, send: localWalletClient(h.chain.rpcUrl, wallet) };
  }

  /** A member of the maker organization, signed in. */
  async function maker(): Promise<StackMaker> {
    const w = await fundedWallet();
    await ctx.services.identity.orgs.addMember({ organization_id: org.id, address: w.wallet.address, role: 'member' });
    return { ...w, token: await signIn(app, w.wallet) };
  }

  /** A Dutch request over the chain's pair, taker pays 1 -> 2 USDC over 600 s, a 30 s exclusive window. */
  function auctionBody(o: { requiredAuthority?: Address; competeMs?: number } = {}) {
    return chainDutchBody(h.chain, h.chain.accounts[2], {
      request: o.requiredAuthority ? { required_authority: o.requiredAuthority } : {},
      body: { compete_ms: o.competeMs ?? 1500, exclusive_ms: 30_000 },
    });
  }

  async function createAuction(o: { requiredAuthority?: Address; competeMs?: number } = {}) {
    const res = await request(app)
      .post('/api/quote')
      .send(await auctionBody(o))
      .expect(201);
    return { id: res.body.quote.id as string, stream: topics.rfqStream(hashStreamToken(res.body.stream_token)) };
  }

  /** The fillable payload of quote `id` as the public maker feed carried it in phase `exclusive`. */
  async function publicAward(id: string): Promise<Fillable> {
    const feed = await eventually(
      () => topicEvents(h.env, topics.quotesRequests(h.chain.chainId)),
      (e) => e.some((x) => x.payload.quote_id === id && x.payload.dutch_phase === 'exclusive'),
      30_000,
    );
    const hit = feed.find((x) => x.payload.quote_id === id && x.payload.dutch_phase === 'exclusive');
    if (!hit) throw new Error(`no exclusive payload of ${id} on the public feed`);
    return hit.payload as Fillable;
  }

  /** The winner's own `dutch_award` notice of quote `id`, from its rfq_maker topic. */
  async function winnerNotice(winner: Address, id: string): Promise<SeenEvent & { payload: Fillable }> {
    const seen = await eventually(
      () => topicEvents(h.env, topics.rfqMaker(winner)),
      (e) => e.some((x) => x.event === 'dutch_award' && x.payload.quote_id === id),
      30_000,
    );
    const hit = seen.find((x) => x.event === 'dutch_award' && x.payload.quote_id === id);
    if (!hit) throw new Error(`no dutch_award of ${id} for ${winner}`);
    return hit as SeenEvent & { payload: Fillable };
  }

  /** Lets the award take effect on chain: the next block is no earlier than its notBefore. */
  async function afterNotBefore(p: Fillable): Promise<void> {
    if (p.award.not_before > (await h.chain.now())) await h.chain.rpc('evm_setNextBlockTimestamp', [p.award.not_before]);
  }

  /** executeDutchFill of a fillable payload from `send`'s wallet, mined; its receipt and DutchFilled event. */
  async function fill(send: ReturnType<typeof localWalletClient>, p: Fillable) {
    await afterNotBefore(p);
    const hash = await send.writeContract({
      address: h.chain.addresses.mothership,
      abi: mothershipAbi,
      functionName: 'executeDutchFill',
      args: dutchFillArgs(p),
    });
    return filled(await h.chain.publicClient.waitForTransactionReceipt({ hash }));
  }

  function filled(receipt: TransactionReceipt) {
    const [event] = parseEventLogs({ abi: [dutchFilledEvent], logs: receipt.logs });
    return { receipt, event };
  }

  async function blockTime(receipt: TransactionReceipt): Promise<number> {
    return Number((await h.chain.publicClient.getBlock({ blockHash: receipt.blockHash })).timestamp);
  }

  async function filledQuote(id: string, tx: Hex) {
    return waitFor(
      'quote filled',
      () => quoteState(h, id),
      (s) => s.state === 'filled' && s.fill_tx_hash === tx.toLowerCase(),
      30_000,
    );
  }

  return {
    h,
    app,
    ctx,
    maker,
    fundedWallet,
    auctionBody,
    createAuction,
    publicAward,
    winnerNotice,
    afterNotBefore,
    fill,
    filled,
    blockTime,
    filledQuote,
    async close() {
      await workers.close();
      await ix.stop();
      await h.close();
    },
  };
}

export type DutchStack = Awaited<ReturnType<typeof openDutchStack>>;
