import { randomBytes } from 'node:crypto';
import { getAddress, keccak256, stringToHex, zeroAddress, type Address, type Hex } from 'viem';
import { bondVaultAbi, mockErc20Abi, mothershipAbi, optionPairAbi, pairFactoryAbi } from '../../shared/chain/abis';
import { DEVELOPMENT_SERVICE_SIGNER } from '../../shared/chain/service-signer';
import {
  directions,
  directionsHash,
  dutchAwardTypedData,
  dutchFillDigest,
  dutchFillTypedData,
  exclusiveFillTypedData,
  intentDataHash,
  orderIntentHash,
  packageOfferTypedData,
  takerAddressHash,
  type DutchAward,
  type DutchFillRequest,
  type ExclusiveFill,
  type OrderIntent,
  type PackageOffer,
} from '../../shared/protocol';
import { DEV_BOND_WITHDRAWAL_DELAY_SECONDS, DEV_TOKENS } from '../../dev/deploy';
import { loadArtifact } from '../../dev/contract-artifacts';
import { lendingActions } from '../../dev/lending';
import { mineBlocks, mint, optionId, pairCall } from '../integration/indexer/harness';
import type { TestChain } from './chain';

/**
 * On-chain activity of every kind the indexer reads (indexer/chain-events/indexed-events.ts),
 * sent through the reference contracts with the chain's own wallets: a realistic, varied stream
 * of logs for indexer tests (sync, reorgs, a chaotic RPC) to index and compare.
 *
 *   const summary = await runChainActivity(chain, { rounds: 3 });
 *
 * One round sends, each step followed by `emptyBlocks` empty blocks so the logs spread over many
 * blocks:
 *   - PriceUpdated: the oracle's owner prices WETH (a little different each round) and USDC;
 *   - ServiceSignerSet: the mothership's owner registers or revokes a throwaway signer (never the
 *     development service signer, which the rest of this file relies on);
 *   - PairCreated: the factory creates a pair for a token triple that has none yet (a new faucet
 *     token once the four reference tokens' triples are used up), and a first trade on it, so the
 *     new pair emits OrderPlaced, OrderFilled and Transfer too;
 *   - OrderPlaced, OrderFilled, Transfer (mint): a buy order on the WETH / USDC pair filled whole;
 *   - Transfer (holder to holder): the buyer passes part of it on;
 *   - OrderPlaced, OrderFilled (partial), OrderCancelled: a sell order partly filled, then cancelled;
 *   - OrderIntentPlaced (with its OrderPlaced): an owner places an order intent;
 *   - ExclusiveFillUsed (with OrderFilled, Transfer): a maker fills it under an exclusive fill the
 *     development service signer signs, as the API does;
 *   - BondDeposited, BondWithdrawalRequested: a maker bonds USDC and asks for half of it back;
 *   - DutchFilled (with Transfers): a taker-signed Dutch request filled by the awarded maker;
 *   - PackageExecuted (with a Transfer): a maker-signed package offer settled by the taker;
 *   - LoanOpened, CollateralAdded, CollateralWithdrawn, LoanRepaid (partial, then whole, which
 *     returns the collateral with a CollateralWithdrawn): one loan through its life;
 *   - LoanOpened: a second loan maturing within the hour;
 *   - then chain time moves past the bond vault's withdrawal delay (DEV_BOND_WITHDRAWAL_DELAY_SECONDS,
 *     two hours; `chain.increaseTime`), and BondWithdrawn, CollateralWithdrawn (which accrues the
 *     overdue loan's interest) and LoanLiquidated (the loan is overdue) follow.
 *
 * Every event of INDEXED_EVENTS is produced: none needs anything the reference contracts lack.
 *
 * Consequences for a caller: each round moves chain time two hours ahead of the wall clock (the
 * bond withdrawal needs it), so a test that compares chain time with wall-clock deadlines (the
 * API's exclusive fills) should run its own steps before this or allow for it. Every deadline
 * here is taken from the chain's time. Run rounds one after another, not concurrently with each
 * other: the steps read ids (next order id, pairs) before they send.
 */

/**
 * A contract call from `chain.wallets[from]` with a fixed, generous gas limit, awaited to its
 * receipt. Gas is not estimated: a call whose cost depends on the block's time (a Dutch price, a
 * loan's interest) can need more when mined than when estimated a moment before, most of all on a
 * busy machine, and then fails with "ran out of gas".
 */
async function sendTx(chain: TestChain, from: number, address: Address, abi: readonly unknown[], functionName: string, args: readonly unknown[]): Promise<Hex> {
  const hash = await chain.wallets[from].writeContract({ address, abi, functionName, args, gas: 5_000_000n } as never);
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
  return hash;
}

/** Which of the chain's wallets (indices into `chain.wallets`) act in which role. */
export interface ActivityRoles {
  /** Deployed the contracts: owns the price oracle and the mothership. */
  owner: number;
  /** Fills: the exclusive fill's maker, the Dutch filler, the package maker. */
  maker: number;
  /** Signs the Dutch request and settles the package. */
  taker: number;
  /** Buys on the book, then transfers and places the order intent. */
  buyer: number;
  /** Receives a transfer and places the sell order. */
  receiver: number;
  /** Fills book orders. */
  filler: number;
  bonder: number;
  lender: number;
  borrower: number;
  liquidator: number;
}

export const DEFAULT_ACTIVITY_ROLES: Readonly<ActivityRoles> = {
  owner: 0,
  maker: 1,
  taker: 2,
  lender: 3,
  borrower: 4,
  liquidator: 5,
  buyer: 6,
  receiver: 7,
  bonder: 8,
  filler: 9,
};

/** The transactions a round sends, by what they do (faucet, approve and loan offers not counted here: see `txs`). */
export const ACTIVITY_KINDS = [
  'setPrice',
  'setServiceSigner',
  'deployToken',
  'createPair',
  'placeOrder',
  'fillOrder',
  'cancelOrder',
  'transfer',
  'placeIntent',
  'fillExclusive',
  'bondDeposit',
  'bondRequestWithdrawal',
  'bondWithdraw',
  'dutchFill',
  'executePackage',
  'loanOpen',
  'loanAddCollateral',
  'loanWithdrawCollateral',
  'loanRepay',
  'loanLiquidate',
] as const;

export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export interface ChainActivitySummary {
  rounds: number;
  /** Transactions sent per kind. */
  sent: Record<ActivityKind, number>;
  /** Every transaction the chain's wallets sent meanwhile, the supporting ones (faucet, approve, offerLoan) included. */
  txs: number;
  /** Empty blocks mined between steps (the time moves mine one more per round). */
  emptyBlocks: number;
  /** The first block after the chain's head at the start, and the head at the end: every log of the activity is in between. */
  fromBlock: number;
  toBlock: number;
  /** Pairs the factory created. */
  pairs: Address[];
}

export interface ChainActivityOptions {
  rounds: number;
  /** Empty blocks mined after each step (default 2). */
  emptyBlocks?: number;
  roles?: Partial<ActivityRoles>;
}

const WAD = 10n ** 18n;
const ETH = 10n ** 18n;
const USDC = 10n ** 6n;
const BOND = 1_000n * USDC;
const DAY = 86_400;

/** Registered and revoked by the ServiceSignerSet steps; its key is never used, nobody signs with it. */
const THROWAWAY_SIGNER: Address = getAddress(`0x${keccak256(stringToHex('chain-activity throwaway service signer')).slice(26)}`);

const random32 = (): Hex => `0x${randomBytes(32).toString('hex')}`;
/** Nonces unique across runs and processes on one chain, without reading any state. */
const randomNonce = (): bigint => BigInt(`0x${randomBytes(16).toString('hex')}`);

/** Per chain: faucet tokens deployed for pairs once the reference tokens' triples are used up. */
const extraTokens = new WeakMap<TestChain, Address[]>();

/** Produces `opts.rounds` rounds of activity of every indexed kind on `chain` (see above). */
export async function runChainActivity(chain: TestChain, opts: ChainActivityOptions): Promise<ChainActivitySummary> {
  const roles: ActivityRoles = { ...DEFAULT_ACTIVITY_ROLES, ...opts.roles };
  const gap = opts.emptyBlocks ?? 2;
  const sent = Object.fromEntries(ACTIVITY_KINDS.map((k) => [k, 0])) as Record<ActivityKind, number>;
  const summary: ChainActivitySummary = { rounds: opts.rounds, sent, txs: 0, emptyBlocks: 0, fromBlock: 0, toBlock: 0, pairs: [] };
  const nonces = () => Promise.all(chain.accounts.map((a) => chain.publicClient.getTransactionCount({ address: a.address, blockTag: 'latest' })));
  const head = async () => Number(await chain.rpc<Hex>('eth_blockNumber'));

  summary.fromBlock = (await head()) + 1;
  const startNonces = await nonces();
  const ctx: Round = { chain, roles, sent, summary, gap };
  for (let r = 0; r < opts.rounds; r++) await round(ctx, r);
  const endNonces = await nonces();
  summary.txs = endNonces.reduce((sum, n, i) => sum + (n - startNonces[i]), 0);
  summary.toBlock = await head();
  return summary;
}

interface Round {
  chain: TestChain;
  roles: ActivityRoles;
  sent: Record<ActivityKind, number>;
  summary: ChainActivitySummary;
  gap: number;
}

async function round(ctx: Round, r: number): Promise<void> {
  const { chain, roles, sent } = ctx;
  const { addresses } = chain;
  const wallet = (i: number) => chain.wallets[i];
  const address = (i: number) => chain.accounts[i].address;
  const lend = lendingActions(chain.publicClient, addresses);
  const pause = async () => {
    await mineBlocks(chain, ctx.gap);
    ctx.summary.emptyBlocks += ctx.gap;
  };

  // Prices first: the loans below need both.
  await lend.setPrice(wallet(roles.owner), addresses.weth, (3000n + BigInt(r)) * WAD);
  await lend.setPrice(wallet(roles.owner), addresses.usdc, WAD);
  sent.setPrice += 2;
  await pause();

  await sendTx(chain, roles.owner, addresses.mothership, mothershipAbi, 'setServiceSigner', [THROWAWAY_SIGNER, r % 2 === 0]);
  sent.setServiceSigner++;
  await pause();

  // A new pair, and a first trade on it.
  const newPair = await createNextPair(ctx);
  await mint(chain, newPair, roles.buyer, await optionId(chain, 2000n + BigInt(r)), 3n, roles.filler);
  sent.placeOrder++;
  sent.fillOrder++;
  await pause();

  // The book on the reference pair: a buy filled whole (a mint), a transfer, a sell filled in part then cancelled.
  const pair = addresses.pair;
  const id = await optionId(chain, 3000n + BigInt(r));
  await mint(chain, pair, roles.buyer, id, 5n, roles.filler);
  sent.placeOrder++;
  sent.fillOrder++;
  await pause();
  await pairCall(chain, roles.buyer, pair, 'transfer', [address(roles.receiver), id, 2n]);
  sent.transfer++;
  await pause();
  const sellId = await chain.publicClient.readContract({ address: pair, abi: optionPairAbi, functionName: 'nextOrderId' });
  await pairCall(chain, roles.receiver, pair, 'placeOrder', [id, false, 40_000_000n, 5n]);
  await pairCall(chain, roles.filler, pair, 'fillOrder', [sellId, 2n]);
  sent.placeOrder++;
  sent.fillOrder++;
  await pause();
  await pairCall(chain, roles.receiver, pair, 'cancelOrder', [sellId]);
  sent.cancelOrder++;
  await pause();

  await exclusiveFill(ctx);
  await pause();

  // Bond in; half of it asked back (paid out after the time move below).
  await sendTx(chain, roles.bonder, addresses.usdc, mockErc20Abi, 'faucet', []);
  await sendTx(chain, roles.bonder, addresses.usdc, mockErc20Abi, 'approve', [addresses.bondVault, BOND]);
  await sendTx(chain, roles.bonder, addresses.bondVault, bondVaultAbi, 'deposit', [addresses.usdc, BOND]);
  sent.bondDeposit++;
  await pause();
  await sendTx(chain, roles.bonder, addresses.bondVault, bondVaultAbi, 'requestWithdrawal', [addresses.usdc, BOND / 2n]);
  sent.bondRequestWithdrawal++;
  await pause();

  await dutchFill(ctx);
  await pause();
  await executePackage(ctx);
  await pause();

  // A loan through its life: opened, topped up, partly withdrawn, repaid in part, then whole.
  const now = await chain.now();
  const terms = (maturity: number) => ({
    collateralToken: addresses.weth,
    collateralAmount: ETH,
    debtToken: addresses.usdc,
    principal: 1000n * USDC,
    rateBps: 500,
    maturity,
  });
  const loan = await lend.openLoan(wallet(roles.lender), wallet(roles.borrower), terms(now + 30 * DAY));
  sent.loanOpen++;
  await pause();
  await lend.addCollateral(wallet(roles.borrower), addresses.weth, loan, ETH / 2n);
  sent.loanAddCollateral++;
  await pause();
  await lend.withdrawCollateral(wallet(roles.borrower), loan, ETH / 4n);
  sent.loanWithdrawCollateral++;
  await pause();
  await lend.repay(wallet(roles.borrower), addresses.usdc, loan, 400n * USDC);
  sent.loanRepay++;
  await pause();
  await lend.repayAll(wallet(roles.borrower), addresses.usdc, loan);
  sent.loanRepay++;
  await pause();
  // Due within the hour: overdue after the time move, so it is liquidated whatever the prices.
  const overdue = await lend.openLoan(wallet(roles.lender), wallet(roles.borrower), terms((await chain.now()) + 3600));
  sent.loanOpen++;
  await pause();

  await chain.increaseTime(Number(DEV_BOND_WITHDRAWAL_DELAY_SECONDS) + 1);
  ctx.summary.emptyBlocks++;
  await sendTx(chain, roles.bonder, addresses.bondVault, bondVaultAbi, 'withdraw', [addresses.usdc]);
  sent.bondWithdraw++;
  await pause();
  // The market accrues interest only when a loan is touched: this withdrawal writes the two
  // hours' interest, so the liquidation helper (which pays what is written plus a minute's) pays enough.
  await lend.withdrawCollateral(wallet(roles.borrower), overdue, ETH / 10n);
  sent.loanWithdrawCollateral++;
  await pause();
  await lend.liquidate(wallet(roles.liquidator), addresses.usdc, overdue);
  sent.loanLiquidate++;
  await pause();
}

/** Creates the first pair of a token triple that has none; deploys a new faucet token once the reference tokens have all of theirs. */
async function createNextPair(ctx: Round): Promise<Address> {
  const { chain, roles, sent } = ctx;
  const { addresses } = chain;
  const factory = { address: addresses.pairFactory, abi: pairFactoryAbi } as const;
  const tokens = DEV_TOKENS.map((t) => addresses[t.key]);
  const triples: [Address, Address, Address][] = [];
  for (const t0 of tokens) for (const t1 of tokens) if (t0 !== t1) for (const p of tokens) triples.push([t0, t1, p]);
  const existing = await Promise.all(triples.map((args) => chain.publicClient.readContract({ ...factory, functionName: 'getPair', args })));
  let triple = triples.find((_, i) => existing[i] === zeroAddress);
  if (!triple) {
    const token = await deployFaucetToken(chain, roles.owner, (extraTokens.get(chain)?.length ?? 0) + 1);
    extraTokens.set(chain, [...(extraTokens.get(chain) ?? []), token]);
    sent.deployToken++;
    triple = [token, addresses.usdc, addresses.usdc];
  }
  await sendTx(chain, roles.owner, addresses.pairFactory, pairFactoryAbi, 'createPair', triple);
  sent.createPair++;
  const pair = await chain.publicClient.readContract({ ...factory, functionName: 'getPair', args: triple });
  ctx.summary.pairs.push(pair);
  return pair;
}

async function deployFaucetToken(chain: TestChain, from: number, n: number): Promise<Address> {
  const { abi, bytecode } = loadArtifact('MockERC20');
  const hash = await chain.wallets[from].deployContract({ abi, bytecode, args: [`Activity Token ${n}`, `ACT${n}`, 18, 1000n * WAD] });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying activity token ${n} failed in ${hash}`);
  return getAddress(receipt.contractAddress);
}

/** The buyer places an order intent; the maker fills it under an exclusive fill the service signs (as POST /api/exclusive-fill does). */
async function exclusiveFill(ctx: Round): Promise<void> {
  const { chain, roles, sent } = ctx;
  const pair = chain.addresses.pair;
  const now = await chain.now();
  const intent: OrderIntent = {
    from: chain.accounts[roles.buyer].address,
    to: pair,
    noncePrefix: 7n,
    nonce: randomNonce(),
    options6909Contract: pair,
    amount: 10n,
    fillerRewardMaxPerMintedUnit: 100n,
    fillerRewardMinPerMintedUnit: 0n,
    optionType: 0,
    startExecutionTimestamp: 0,
    expiryTimestamp: now + 30 * DAY,
    premiumStart: 1_000_000n,
    premiumEnd: 900_000n,
    premiumDecayRateBpsPerSecond: 1,
    strikeStart: 3000n * WAD,
    strikeEnd: 3000n * WAD,
    strikeDecayRateBpsPerSecond: 0,
    startMinFill: 1n,
    minFillDecayRatePerSecond: 0n,
    buyOrSell: 0,
    intentStartTime: now - 60,
    intentExpiry: now + 3600,
    orderOnExpiry: 0,
  };
  await sendTx(chain, roles.buyer, pair, optionPairAbi, 'placeIntent', [intent]);
  sent.placeIntent++;
  await mineBlocks(chain, ctx.gap);
  ctx.summary.emptyBlocks += ctx.gap;
  const fill: ExclusiveFill = {
    exclusiveFillId: random32(),
    maker: chain.accounts[roles.maker].address,
    orderIds: [random32()],
    rewardDestination: chain.accounts[roles.maker].address,
    intentDataHash: intentDataHash([orderIntentHash(intent)]),
    expireTime: now + 3600,
  };
  const signature = await DEVELOPMENT_SERVICE_SIGNER.signTypedData(exclusiveFillTypedData(chain.chainId, chain.addresses.mothership, fill));
  await sendTx(chain, roles.maker, pair, optionPairAbi, 'fillExclusive', [fill, signature, [intent], 10n]);
  sent.fillExclusive++;
}

/** A bought call spread the taker signs as a Dutch request; the maker the service awarded fills it during its exclusivity. */
async function dutchFill(ctx: Round): Promise<void> {
  const { chain, roles, sent } = ctx;
  const { addresses } = chain;
  const now = await chain.now();
  const dirs = directions('b_is_buy', [0, 1]);
  const request: DutchFillRequest = {
    intents: [0, 1].map((structure) => ({
      pair6909Contract: addresses.pair,
      optionType: 0,
      structure,
      startExerciseTimestamp: 0,
      expiryTimestamp: now + 7 * DAY,
      strikeWad: (3000n + 500n * BigInt(structure)) * WAD,
      amount: ETH,
    })),
    tokens: [{ token0: addresses.weth, token1: addresses.usdc, premiumToken: addresses.usdc }],
    dutchPremium: { token: addresses.usdc, makerPaysTaker: false, startPremium: 100n * USDC, endPremium: 200n * USDC, decayRate: 0n, auctionStart: now },
    auctionEnd: now + 1000,
    makerAddressHash: directionsHash(dirs),
    takerNonce: randomNonce(),
    requiredAuthority: zeroAddress,
    requiredDutchAuthority: addresses.mothership,
    referrer: zeroAddress,
  };
  const takerSignature = await chain.accounts[roles.taker].signTypedData(dutchFillTypedData(chain.chainId, addresses.mothership, request));
  const award: DutchAward = {
    requestDigest: dutchFillDigest({ chainId: chain.chainId, mothership: addresses.mothership }, request),
    filler: chain.accounts[roles.maker].address,
    improvementBps: 250n,
    notBefore: now,
    exclusiveEnd: now + 100,
  };
  const awardSignature = await DEVELOPMENT_SERVICE_SIGNER.signTypedData(dutchAwardTypedData(chain.chainId, addresses.mothership, award));
  await sendTx(chain, roles.maker, addresses.mothership, mothershipAbi, 'executeDutchFill', [request, takerSignature, dirs, award, awardSignature]);
  sent.dutchFill++;
}

/**
 * A maker-signed one-leg package offer settled by the taker (harness.ts `settleQuote` does the
 * same with a quote in the database; this one needs no database).
 */
async function executePackage(ctx: Round): Promise<void> {
  const { chain, roles, sent } = ctx;
  const { addresses } = chain;
  const now = await chain.now();
  const dirs = directions('b_is_buy', [0]);
  const salt = random32();
  const taker = chain.accounts[roles.taker];
  const maker = chain.accounts[roles.maker];
  const offer: PackageOffer = {
    takerAddressHash: takerAddressHash(taker.address, salt, dirs, zeroAddress),
    legs: [
      {
        pair6909Contract: addresses.pair,
        optionType: 0,
        structure: 0,
        startExerciseTimestamp: 0,
        expiryTimestamp: now + 7 * DAY,
        strikeWad: 3100n,
        amount: 5n,
      },
    ],
    packagePremium: 1000n,
    makerPaysTaker: false,
    premiumToken: addresses.usdc,
    maker: maker.address,
    nonce: randomNonce(),
    deadline: now + 600,
  };
  const signature = await maker.signTypedData(packageOfferTypedData(chain.chainId, addresses.mothership, offer));
  await sendTx(chain, roles.taker, addresses.mothership, mothershipAbi, 'executeFixedPackageIntent', [offer, signature, salt, dirs, zeroAddress]);
  sent.executePackage++;
}
