import { parseEventLogs, zeroAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { dutchFilledEvent, fillAuthorityAbi, fillerAllowedEvent, fillerDisallowedEvent, mothershipAbi, transferEvent } from '../../../shared/chain/abis';
import { hardhatAccounts } from '../../../shared/chain/clients';
import { DEVELOPMENT_SERVICE_SIGNER } from '../../../shared/chain/service-signer';
import {
  directions as deriveDirections,
  directionsHash,
  dutchAwardDigest,
  dutchAwardTypedData,
  dutchFillDigest,
  dutchFillTypedData,
  dutchPremiumAt,
  improvedPremium,
  type DutchAward,
  type DutchFillRequest,
} from '../../../shared/protocol';
import type { TestChain } from '../../support/chain';
import { sharedTestChain } from '../../support/worker-chain';
import * as arb from './arbitraries';
import { revertName } from './reverts';

/**
 * The mothership's Dutch half: the award digest, the decay curve and the bid improvement agree
 * with TypeScript on random inputs, and executeDutchFill lets the award's filler, a sniper
 * paying the override, or anyone after the exclusive window fill, and nobody else; a request
 * naming a fill authority is filled only by callers that authority allows.
 */
const RUNS = 200;
let chain: TestChain;
let nonce = 0n;

beforeAll(async () => {
  chain = await sharedTestChain();
});
afterAll(() => chain?.stop());

const mothership = () => ({ address: chain.addresses.mothership, abi: mothershipAbi }) as const;
const ctx = () => ({ chainId: chain.chainId, mothership: chain.addresses.mothership });
const taker = () => chain.accounts[2];
const winner = () => chain.accounts[1];
const sniper = () => chain.accounts[3];
/** A wallet a winning bid named as its filler, other than the maker's own. */
const delegate = () => chain.accounts[4];
const owner = () => chain.accounts[0];

describe('TypeScript and Solidity agree on the Dutch arithmetic', () => {
  it(`DutchAward digest on ${RUNS} random inputs`, async () => {
    const inputs = arb.sample(arb.dutchAward, RUNS, 11);
    const sol = await Promise.all(inputs.map((a) => chain.publicClient.readContract({ ...mothership(), functionName: 'digestDutchAward', args: [a] })));
    expect(sol).toEqual(inputs.map((a) => dutchAwardDigest(ctx(), a)));
  });

  it(`the decay curve on ${RUNS} random points`, async () => {
    const inputs = arb.sample(arb.curvePoint, RUNS, 12);
    const sol = await Promise.all(
      inputs.map((i) => chain.publicClient.readContract({ ...mothership(), functionName: 'dutchPremiumAt', args: [i.premium, i.auctionEnd, BigInt(i.at)] })),
    );
    expect(sol).toEqual(inputs.map((i) => dutchPremiumAt(i.premium, i.auctionEnd, i.at)));
    // Not degenerate: points before, inside and after the auction, with each decay kind.
    const inside = inputs.filter((i) => i.at > i.premium.auctionStart && i.at < i.auctionEnd);
    expect(inside.filter((i) => i.premium.decayRate === 0n).length).toBeGreaterThan(10);
    expect(inside.filter((i) => i.premium.decayRate > 0n).length).toBeGreaterThan(10);
    expect(inputs.filter((i) => i.at >= i.auctionEnd).length).toBeGreaterThan(0);
  });

  it(`the bid improvement on ${RUNS} random premiums`, async () => {
    const inputs = arb.sample(arb.improvement, RUNS, 13);
    const sol = await Promise.all(
      inputs.map((i) => chain.publicClient.readContract({ ...mothership(), functionName: 'dutchImproved', args: [i.premium, i.makerPaysTaker, i.bps] })),
    );
    expect(sol).toEqual(inputs.map((i) => improvedPremium(i.premium, i.makerPaysTaker, i.bps)));
  });
});

interface Scenario {
  request: DutchFillRequest;
  takerSignature: Hex;
  directions: (0 | 1)[];
  award: DutchAward;
  awardSignature: Hex;
}

/** A bought capped call, auction of 1,000 s with the taker paying 100 -> 200 USDC; the award as given. */
async function scenario(
  over: { award?: Partial<DutchAward>; request?: Partial<DutchFillRequest>; awardSigner?: typeof DEVELOPMENT_SERVICE_SIGNER } = {},
): Promise<Scenario> {
  const now = await chain.now();
  const expiry = now + 7 * 86_400;
  const structures = [0, 1] as const;
  const dirs = deriveDirections('b_is_buy', [...structures]);
  const request: DutchFillRequest = {
    intents: structures.map((structure, i) => ({
      pair6909Contract: chain.addresses.pair,
      optionType: 0,
      structure,
      startExerciseTimestamp: 0,
      expiryTimestamp: expiry,
      strikeWad: 3_000_000_000n + BigInt(i) * 500_000_000n,
      amount: 10n ** 18n,
    })),
    tokens: [{ token0: chain.addresses.weth, token1: chain.addresses.usdc, premiumToken: chain.addresses.usdc }],
    dutchPremium: {
      token: chain.addresses.usdc,
      makerPaysTaker: false,
      startPremium: 100_000_000n,
      endPremium: 200_000_000n,
      decayRate: 0n,
      auctionStart: now,
    },
    auctionEnd: now + 1000,
    makerAddressHash: directionsHash(dirs),
    takerNonce: ++nonce,
    requiredAuthority: zeroAddress,
    requiredDutchAuthority: chain.addresses.mothership,
    referrer: zeroAddress,
    ...over.request,
  };
  const takerSignature = await taker().signTypedData(dutchFillTypedData(chain.chainId, chain.addresses.mothership, request));
  const award: DutchAward = {
    requestDigest: dutchFillDigest(ctx(), request),
    filler: winner().address,
    improvementBps: 250n,
    notBefore: now,
    exclusiveEnd: now + 100,
    ...over.award,
  };
  const awardSignature = await (over.awardSigner ?? DEVELOPMENT_SERVICE_SIGNER).signTypedData(
    dutchAwardTypedData(chain.chainId, chain.addresses.mothership, award),
  );
  return { request, takerSignature, directions: dirs, award, awardSignature };
}

function fill(s: Scenario, from = winner()) {
  return chain.publicClient.simulateContract({
    ...mothership(),
    account: from,
    functionName: 'executeDutchFill',
    args: [s.request, s.takerSignature, s.directions, s.award, s.awardSignature],
  });
}

/** Sends the fill in a block at `at` and returns its DutchFilled event and mints. */
async function fillAt(s: Scenario, at: number, from = winner()) {
  await chain.rpc('evm_setNextBlockTimestamp', [at]);
  const { request } = await fill(s, from);
  const wallet = chain.wallets[chain.accounts.indexOf(from)];
  const tx = await wallet.writeContract(request);
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: tx });
  expect(receipt.status).toBe('success');
  const [event] = parseEventLogs({ abi: [dutchFilledEvent], logs: receipt.logs });
  return { event, mints: parseEventLogs({ abi: [transferEvent], logs: receipt.logs }) };
}

describe('executeDutchFill', () => {
  it('the winner fills during its exclusivity at the curve price improved by its bid, once', async () => {
    const s = await scenario();
    const at = s.request.dutchPremium.auctionStart + 50;
    const { event, mints } = await fillAt(s, at);
    const curve = dutchPremiumAt(s.request.dutchPremium, s.request.auctionEnd, at);
    expect(curve).toBe(105_000_000n);
    expect(event.args).toEqual({
      requestDigest: s.award.requestDigest,
      taker: taker().address,
      filler: winner().address,
      takerNonce: s.request.takerNonce,
      premiumToken: chain.addresses.usdc,
      premium: improvedPremium(curve, false, 250n),
      makerPaysTaker: false,
      exclusive: true,
      referrer: zeroAddress,
      directions: [1, 0],
    });
    // Direction 1 leaves the taker long, 0 the filler.
    expect(mints.map((m) => m.args.receiver)).toEqual([taker().address, winner().address]);
    expect(await revertName(fill(s))).toBe('DutchNonceUsed');
  });

  it("a sniper with the very same award and arguments during the exclusivity pays the winner's improvement plus the override", async () => {
    const s = await scenario();
    const override = await chain.publicClient.readContract({ ...mothership(), functionName: 'dutchOverrideBps' });
    const at = s.request.dutchPremium.auctionStart + 60;
    const { event } = await fillAt(s, at, sniper());
    const curve = dutchPremiumAt(s.request.dutchPremium, s.request.auctionEnd, at);
    expect(event.args.premium).toBe(improvedPremium(curve, false, 250n + override));
    expect([event.args.exclusive, event.args.filler]).toEqual([false, sniper().address]);
  });

  it("the award names its filler: that wallet gets the winner's price, the bidding maker's own wallet does not", async () => {
    const named = await scenario({ award: { filler: delegate().address } });
    const at = named.request.dutchPremium.auctionStart + 70;
    const { event } = await fillAt(named, at, delegate());
    const curve = dutchPremiumAt(named.request.dutchPremium, named.request.auctionEnd, at);
    expect([event.args.premium, event.args.exclusive]).toEqual([improvedPremium(curve, false, 250n), true]);
    const other = await scenario({ award: { filler: delegate().address } });
    const override = await chain.publicClient.readContract({ ...mothership(), functionName: 'dutchOverrideBps' });
    const at2 = other.request.dutchPremium.auctionStart + 70;
    const second = await fillAt(other, at2, winner());
    const curve2 = dutchPremiumAt(other.request.dutchPremium, other.request.auctionEnd, at2);
    expect([second.event.args.premium, second.event.args.exclusive]).toEqual([improvedPremium(curve2, false, 250n + override), false]);
  });

  it('after the exclusivity anyone fills at the plain curve price', async () => {
    const s = await scenario();
    const at = s.award.exclusiveEnd + 1;
    const { event } = await fillAt(s, at, sniper());
    expect(event.args.premium).toBe(dutchPremiumAt(s.request.dutchPremium, s.request.auctionEnd, at));
  });

  it('an award without a winner (no bids) opens the request at the curve price', async () => {
    const s = await scenario({ award: { filler: zeroAddress, improvementBps: 0n } });
    const at = s.request.dutchPremium.auctionStart + 10;
    const { event } = await fillAt(s, at, sniper());
    expect(event.args.premium).toBe(dutchPremiumAt(s.request.dutchPremium, s.request.auctionEnd, at));
  });

  it("refuses a fill before the award takes effect, after the auction, or with another request's award", async () => {
    const now = await chain.now();
    expect(await revertName(fill(await scenario({ award: { notBefore: now + 500 } })))).toBe('AwardNotYet');
    expect(await revertName(fill(await scenario({ request: { auctionEnd: now - 1 } })))).toBe('AuctionOver');
    expect(await revertName(fill(await scenario({ award: { requestDigest: `0x${'12'.repeat(32)}` } })))).toBe('AwardMismatch');
  });

  it('refuses an award not signed by a registered auctioneer, or by another than the named one', async () => {
    const stranger = privateKeyToAccount(`0x${'42'.repeat(32)}`);
    expect(await revertName(fill(await scenario({ awardSigner: stranger })))).toBe('NotAuctioneer');
    const named = await scenario({ request: { requiredDutchAuthority: stranger.address } });
    expect(await revertName(fill(named))).toBe('NotAuctioneer');
  });

  it('refuses directions that are not the signed hash and a changed request', async () => {
    const s = await scenario();
    expect(await revertName(fill({ ...s, directions: [0, 1] }))).toBe('DirectionsMismatch');
    // Changing what was signed recovers another "taker", whose digest the award does not name.
    expect(await revertName(fill({ ...s, request: { ...s.request, auctionEnd: s.request.auctionEnd + 1 } }))).toBe('AwardMismatch');
  });

  it('only the owner sets the override, at most 10,000 bps', async () => {
    const call = { ...mothership(), functionName: 'setDutchOverrideBps', args: [50n] } as const;
    expect(await revertName(chain.publicClient.simulateContract({ ...call, account: sniper() }))).toBe('NotOwner');
    expect(await revertName(chain.publicClient.simulateContract({ ...call, args: [10_001n], account: hardhatAccounts(1)[0] }))).toBe('BadBps');
  });
});

describe('fill authority (required_authority)', () => {
  const authority = () => ({ address: chain.addresses.fillAuthority, abi: fillAuthorityAbi }) as const;

  async function setFiller(filler: `0x${string}`, allowed: boolean) {
    const tx = await chain.wallets[0].writeContract({ ...authority(), functionName: allowed ? 'allowFiller' : 'disallowFiller', args: [filler] });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: tx });
    expect(receipt.status).toBe('success');
    return parseEventLogs({ abi: [fillerAllowedEvent, fillerDisallowedEvent], logs: receipt.logs });
  }

  it('a filler the authority does not allow reverts with AuthorityRequired, an allowed one fills', async () => {
    const s = await scenario({ request: { requiredAuthority: chain.addresses.fillAuthority } });
    expect(await revertName(fill(s, winner()))).toBe('AuthorityRequired');
    const allowed = await setFiller(winner().address, true);
    expect(allowed.map((e) => [e.eventName, e.args.filler])).toEqual([['FillerAllowed', winner().address]]);
    // The sniping rule still holds inside the allowlist, but only for allowed callers.
    expect(await revertName(fill(s, sniper()))).toBe('AuthorityRequired');
    const { event } = await fillAt(s, s.request.dutchPremium.auctionStart + 40);
    expect([event.args.filler, event.args.exclusive]).toEqual([winner().address, true]);
  });

  it('a disallowed filler is refused again; an authority with no code or no isAllowedFiller refuses everyone', async () => {
    await setFiller(delegate().address, true);
    const disallowed = await setFiller(delegate().address, false);
    expect(disallowed.map((e) => e.eventName)).toEqual(['FillerDisallowed']);
    const s = await scenario({ request: { requiredAuthority: chain.addresses.fillAuthority }, award: { filler: delegate().address } });
    expect(await revertName(fill(s, delegate()))).toBe('AuthorityRequired');
    // An address without code, and a contract that is no authority (the pair), never allow.
    expect(await revertName(fill(await scenario({ request: { requiredAuthority: sniper().address } }), sniper()))).toBe('AuthorityRequired');
    expect(await revertName(fill(await scenario({ request: { requiredAuthority: chain.addresses.pair } }), winner()))).toBe('AuthorityRequired');
  });

  it('only its owner allows or disallows fillers, never the zero address', async () => {
    expect(
      await revertName(chain.publicClient.simulateContract({ ...authority(), functionName: 'allowFiller', args: [sniper().address], account: sniper() })),
    ).toBe('NotOwner');
    expect(
      await revertName(chain.publicClient.simulateContract({ ...authority(), functionName: 'disallowFiller', args: [winner().address], account: sniper() })),
    ).toBe('NotOwner');
    expect(await revertName(chain.publicClient.simulateContract({ ...authority(), functionName: 'allowFiller', args: [zeroAddress], account: owner() }))).toBe(
      'ZeroFiller',
    );
    expect(await chain.publicClient.readContract({ ...authority(), functionName: 'owner' })).toBe(owner().address);
  });
});
