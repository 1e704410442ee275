import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import {
  dutchFillTypedData,
  exclusiveFillTypedData,
  isDutchFillSignedBy,
  isExclusiveFillSignedBy,
  isPackageOfferSignedByMaker,
  packageOfferTypedData,
  recoverDutchFillSigner,
  recoverExclusiveFillSigner,
  type PackageOffer,
} from '../../../shared/protocol';
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
