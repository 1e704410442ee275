import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { ValidationError } from '../../../shared/platform/errors';
import {
  assertCanonicalSignature,
  canonicalSignatureSchema,
  dutchFillTypedData,
  exclusiveFillTypedData,
  isDutchFillSignedBy,
  isExclusiveFillSignedBy,
  isCanonicalSignature,
  isPackageOfferSignedByMaker,
  packageOfferTypedData,
  recoverDutchFillSigner,
  recoverExclusiveFillSigner,
  SECP256K1_HALF_N,
  signatureProblem,
  type PackageOffer,
} from '../../../shared/protocol';
import { highS, withV } from '../../support/malleate';
import * as ex from './examples';

const ctx = { chainId: ex.CHAIN_ID, mothership: ex.MOTHERSHIP };
const maker = privateKeyToAccount(ex.MAKER_KEY);
const stranger = privateKeyToAccount(generatePrivateKey());

describe('typed-data signatures', () => {
  it('a package offer verifies only for its own maker and its exact content', async () => {
    const signature = await maker.signTypedData(packageOfferTypedData(ex.CHAIN_ID, ex.MOTHERSHIP, ex.OFFER));
    await expect(isPackageOfferSignedByMaker(ctx, ex.OFFER, signature)).resolves.toBe(true);

    const changed: [string, PackageOffer][] = [
      ['premium', { ...ex.OFFER, packagePremium: ex.OFFER.packagePremium + 1n }],
      ['direction of payment', { ...ex.OFFER, makerPaysTaker: true }],
      ['taker hash', { ...ex.OFFER, takerAddressHash: `0x${'00'.repeat(32)}` }],
      ['a leg strike', { ...ex.OFFER, legs: [{ ...ex.OFFER.legs[0], strikeWad: 1n }, ex.OFFER.legs[1]] }],
      ['leg order', { ...ex.OFFER, legs: [ex.OFFER.legs[1], ex.OFFER.legs[0]] }],
      ['deadline', { ...ex.OFFER, deadline: ex.OFFER.deadline + 1 }],
      ['maker', { ...ex.OFFER, maker: stranger.address }],
    ];
    for (const [, offer] of changed) await expect(isPackageOfferSignedByMaker(ctx, offer, signature)).resolves.toBe(false);
    // Another chain or another mothership is another domain.
    await expect(isPackageOfferSignedByMaker({ ...ctx, chainId: 1 }, ex.OFFER, signature)).resolves.toBe(false);
    await expect(isPackageOfferSignedByMaker({ ...ctx, mothership: ex.PAIR }, ex.OFFER, signature)).resolves.toBe(false);
  });

  it('a malformed signature is simply not valid', async () => {
    await expect(isPackageOfferSignedByMaker(ctx, ex.OFFER, '0x1234')).resolves.toBe(false);
  });

  it('a Dutch request recovers to the taker who signed it', async () => {
    const taker = privateKeyToAccount(generatePrivateKey());
    const signature = await taker.signTypedData(dutchFillTypedData(ex.CHAIN_ID, ex.MOTHERSHIP, ex.DUTCH));
    await expect(recoverDutchFillSigner(ctx, ex.DUTCH, signature)).resolves.toBe(taker.address);
    await expect(isDutchFillSignedBy(ctx, ex.DUTCH, signature, taker.address)).resolves.toBe(true);
    await expect(isDutchFillSignedBy(ctx, { ...ex.DUTCH, takerNonce: 8n }, signature, taker.address)).resolves.toBe(false);
  });

  it('an exclusive fill recovers to the API key that signed it', async () => {
    const api = privateKeyToAccount(generatePrivateKey());
    const signature = await api.signTypedData(exclusiveFillTypedData(ex.CHAIN_ID, ex.MOTHERSHIP, ex.EXCLUSIVE));
    await expect(recoverExclusiveFillSigner(ctx, ex.EXCLUSIVE, signature)).resolves.toBe(api.address);
    await expect(isExclusiveFillSignedBy(ctx, ex.EXCLUSIVE, signature, api.address)).resolves.toBe(true);
    const fewerOrders = { ...ex.EXCLUSIVE, orderIds: ex.EXCLUSIVE.orderIds.slice(1) };
    await expect(isExclusiveFillSignedBy(ctx, fewerOrders, signature, api.address)).resolves.toBe(false);
  });
});

describe("canonical signatures (the contracts' _recover rule)", () => {
  it("a signer's own signature is canonical, and its malleated twin recovers the same key but is refused", async () => {
    const taker = privateKeyToAccount(generatePrivateKey());
    const signature = await taker.signTypedData(dutchFillTypedData(ex.CHAIN_ID, ex.MOTHERSHIP, ex.DUTCH));
    expect(signatureProblem(signature)).toBeNull();
    const twin = highS(signature);
    // The twin is a valid ECDSA signature of the same digest: recovery alone cannot tell them apart.
    await expect(recoverDutchFillSigner(ctx, ex.DUTCH, twin)).resolves.toBe(taker.address);
    expect(BigInt(`0x${twin.slice(66, 130)}`)).toBeGreaterThan(SECP256K1_HALF_N);
    expect(signatureProblem(twin)).toMatch(/high s/);
    expect(isCanonicalSignature(twin)).toBe(false);
  });

  it('s exactly n/2 is accepted and n/2 + 1 is refused, as in the contracts', () => {
    const sig = (s: bigint, v = 27) => `0x${'01'.repeat(32)}${s.toString(16).padStart(64, '0')}${v.toString(16)}`;
    expect(signatureProblem(sig(SECP256K1_HALF_N))).toBeNull();
    expect(signatureProblem(sig(SECP256K1_HALF_N + 1n))).toMatch(/high s/);
  });

  it('v is 27 or 28 (0 or 1 read as 27 or 28); anything else is refused', async () => {
    const signature = await maker.signTypedData(packageOfferTypedData(ex.CHAIN_ID, ex.MOTHERSHIP, ex.OFFER));
    for (const v of [0, 1, 27, 28]) expect(signatureProblem(withV(signature, v))).toBeNull();
    for (const v of [2, 26, 29, 0x1d, 35, 36, 255]) expect(signatureProblem(withV(signature, v))).toMatch(new RegExp(`v = ${v}\\b`));
  });

  it('the wrong length, zero r or zero s are refused', () => {
    expect(signatureProblem('0x1234')).toMatch(/65-byte/);
    expect(signatureProblem(`0x${'11'.repeat(64)}`)).toMatch(/65-byte/);
    expect(signatureProblem(`0x${'00'.repeat(32)}${'11'.repeat(32)}1b`)).toMatch(/zero/);
    expect(signatureProblem(`0x${'11'.repeat(32)}${'00'.repeat(32)}1b`)).toMatch(/zero/);
  });

  it('the schema and the assertion name the field they guard', async () => {
    const signature = await maker.signTypedData(packageOfferTypedData(ex.CHAIN_ID, ex.MOTHERSHIP, ex.OFFER));
    expect(canonicalSignatureSchema.safeParse(signature).success).toBe(true);
    expect(() => assertCanonicalSignature(signature, 'signature')).not.toThrow();
    let err: unknown;
    try {
      assertCanonicalSignature(highS(signature), 'dutch.taker_signature');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).status).toBe(400);
    expect((err as ValidationError).details).toEqual([{ path: 'dutch.taker_signature', message: expect.stringMatching(/high s/) }]);
  });
});
