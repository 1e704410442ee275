import { parseEventLogs, zeroAddress, type Address, type Hex } from 'viem';
import { mothershipAbi, optionPairAbi, packageExecutedEvent, transferEvent } from '../../../shared/chain/abis';
import {
  directions,
  encodeOptionId,
  isPackageOfferSignedByMaker,
  packageOfferDigest,
  packageOfferTypedData,
  takerAddressHash,
  type Direction,
  type Leg,
  type PackageOffer,
} from '../../../shared/protocol';
import type { TestChain } from '../../support/chain';
import { sharedTestChain } from '../../support/worker-chain';
import { revertName } from './reverts';

/**
 * executeFixedPackageIntent accepts an offer signed by its maker and called by the taker whose
 * hash it carries, and refuses every other combination with a named error.
 */
let chain: TestChain;
let salt = 0;

beforeAll(async () => {
  chain = await sharedTestChain();
});
afterAll(() => chain?.stop());

const maker = () => chain.accounts[1];
const taker = () => chain.accounts[2];
const stranger = () => chain.accounts[3];

interface Scenario {
  offer: PackageOffer;
  signature: Hex;
  salt: Hex;
  directions: Direction[];
  referrer: Address;
}

/** A bought capped call on the devchain pair, quoted to `taker()` and signed by `maker()`. */
async function scenario(over: { referrer?: Address; deadline?: number } = {}): Promise<Scenario> {
  const now = await chain.now();
  const expiry = now + 7 * 86_400;
  const legs: Leg[] = [
    {
      pair6909Contract: chain.addresses.pair,
      optionType: 0,
      structure: 0,
      startExerciseTimestamp: 0,
      expiryTimestamp: expiry,
      strikeWad: 3_000_000_000n,
      amount: 10n ** 18n,
    },
    {
      pair6909Contract: chain.addresses.pair,
      optionType: 0,
      structure: 1,
      startExerciseTimestamp: 0,
      expiryTimestamp: expiry,
      strikeWad: 3_500_000_000n,
      amount: 10n ** 18n,
    },
  ];
  const dirs = directions('b_is_buy', [0, 1]);
  const referrer = over.referrer ?? zeroAddress;
  const s = `0x${(++salt).toString(16).padStart(64, '0')}` as Hex;
  const offer: PackageOffer = {
    takerAddressHash: takerAddressHash(taker().address, s, dirs, referrer),
    legs,
    packagePremium: 120_000_000n,
    makerPaysTaker: false,
    premiumToken: chain.addresses.usdc,
    maker: maker().address,
    nonce: BigInt(salt),
    deadline: over.deadline ?? now + 600,
  };
  const signature = await maker().signTypedData(packageOfferTypedData(chain.chainId, chain.addresses.mothership, offer));
  return { offer, signature, salt: s, directions: dirs, referrer };
}

function execute(s: Scenario, from = taker()) {
  return chain.publicClient.simulateContract({
    account: from,
    address: chain.addresses.mothership,
    abi: mothershipAbi,
    functionName: 'executeFixedPackageIntent',
    args: [s.offer, s.signature, s.salt, s.directions, s.referrer],
  });
}

describe('executeFixedPackageIntent', () => {
  it('settles a maker-signed offer called by the quoted taker', async () => {
    const s = await scenario();
    await expect(isPackageOfferSignedByMaker({ chainId: chain.chainId, mothership: chain.addresses.mothership }, s.offer, s.signature)).resolves.toBe(true);
    const { request } = await execute(s);
    const hash = await chain.wallets[2].writeContract(request);
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');

    const [executed] = parseEventLogs({ abi: [packageExecutedEvent], logs: receipt.logs });
    expect(executed.address.toLowerCase()).toBe(chain.addresses.mothership.toLowerCase());
    expect(executed.args).toEqual({
      takerAddressHash: s.offer.takerAddressHash,
      maker: maker().address,
      taker: taker().address,
      offerDigest: packageOfferDigest({ chainId: chain.chainId, mothership: chain.addresses.mothership }, s.offer),
      premiumToken: chain.addresses.usdc,
      packagePremium: 120_000_000n,
      makerPaysTaker: false,
      nonce: s.offer.nonce,
      referrer: zeroAddress,
      directions: [1, 0],
    });

    // Direction 1 (Sell) leaves the taker long, 0 (Buy) the maker: one ERC-6909 mint per leg.
    const mints = parseEventLogs({ abi: [transferEvent], logs: receipt.logs });
    const ids = s.offer.legs.map((l) =>
      encodeOptionId({ option_type: l.optionType as 0 | 1, strike_wad: l.strikeWad, expiry_timestamp: l.expiryTimestamp, start_exercise_timestamp: 0 }),
    );
    expect(mints.map((m) => [m.args.sender, m.args.receiver, m.args.id, m.args.amount])).toEqual([
      [zeroAddress, taker().address, ids[0], 10n ** 18n],
      [zeroAddress, maker().address, ids[1], 10n ** 18n],
    ]);
    const pair = { address: chain.addresses.pair, abi: optionPairAbi } as const;
    await expect(chain.publicClient.readContract({ ...pair, functionName: 'balanceOf', args: [taker().address, ids[0]] })).resolves.toBe(10n ** 18n);
    await expect(chain.publicClient.readContract({ ...pair, functionName: 'balanceOf', args: [maker().address, ids[1]] })).resolves.toBe(10n ** 18n);
    await expect(
      chain.publicClient.readContract({
        address: chain.addresses.mothership,
        abi: mothershipAbi,
        functionName: 'nonceUsed',
        args: [maker().address, s.offer.nonce],
      }),
    ).resolves.toBe(true);

    // The same offer cannot settle twice.
    expect(await revertName(execute(s))).toBe('NonceAlreadyUsed');
  });

  it('binds the referrer through the taker hash', async () => {
    const s = await scenario({ referrer: stranger().address });
    await expect(execute(s)).resolves.toBeDefined();
    expect(await revertName(execute({ ...s, referrer: zeroAddress }))).toBe('TakerHashMismatch');
  });

  it.each<[string, (o: PackageOffer) => PackageOffer]>([
    ['package premium', (o) => ({ ...o, packagePremium: o.packagePremium - 1n })],
    ['payment direction', (o) => ({ ...o, makerPaysTaker: true })],
    ['premium token', (o) => ({ ...o, premiumToken: chain.addresses.weth })],
    ['first leg strike', (o) => ({ ...o, legs: [{ ...o.legs[0], strikeWad: o.legs[0].strikeWad + 1n }, o.legs[1]] })],
    ['second leg amount', (o) => ({ ...o, legs: [o.legs[0], { ...o.legs[1], amount: 1n }] })],
    ['nonce', (o) => ({ ...o, nonce: o.nonce + 1000n })],
    ['deadline', (o) => ({ ...o, deadline: o.deadline + 1 })],
  ])('rejects an offer whose %s changed after signing', async (_field, change) => {
    const s = await scenario();
    expect(await revertName(execute({ ...s, offer: change(s.offer) }))).toBe('WrongSigner');
  });

  it('rejects an offer signed by someone other than its maker', async () => {
    const s = await scenario();
    const forged = await stranger().signTypedData(packageOfferTypedData(chain.chainId, chain.addresses.mothership, s.offer));
    expect(await revertName(execute({ ...s, signature: forged }))).toBe('WrongSigner');
    // Claiming the forger as maker does not help: the maker field is signed too.
    expect(await revertName(execute({ ...s, signature: forged, offer: { ...s.offer, maker: stranger().address } }))).toBe('WrongSigner');
  });

  it('rejects a wrong taker hash: another caller, salt, directions or hash', async () => {
    const s = await scenario();
    expect(await revertName(execute(s, stranger()))).toBe('TakerHashMismatch');
    expect(await revertName(execute({ ...s, salt: `0x${'ab'.repeat(32)}` }))).toBe('TakerHashMismatch');
    expect(await revertName(execute({ ...s, directions: [0, 1] }))).toBe('TakerHashMismatch');
    const otherHash = { ...s.offer, takerAddressHash: takerAddressHash(stranger().address, s.salt, s.directions) };
    const resigned = await maker().signTypedData(packageOfferTypedData(chain.chainId, chain.addresses.mothership, otherHash));
    expect(await revertName(execute({ ...s, offer: otherHash, signature: resigned }))).toBe('TakerHashMismatch');
  });

  it('rejects malformed signatures, an expired offer and a leg count mismatch', async () => {
    const s = await scenario();
    expect(await revertName(execute({ ...s, signature: '0x1234' }))).toBe('BadSignature');
    expect(await revertName(execute({ ...s, directions: [1] }))).toBe('LegCountMismatch');
    const expired = await scenario({ deadline: (await chain.now()) - 1 });
    expect(await revertName(execute(expired))).toBe('OfferExpired');
  });
});
