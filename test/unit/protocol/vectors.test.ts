import { encodeAbiParameters, keccak256, stringToBytes, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  directionsHash,
  DUTCH_AWARD_TYPES,
  DUTCH_FILL_REQUEST_TYPES,
  dutchFillDigest,
  eip712TypeString,
  EXCLUSIVE_FILL_TYPES,
  encodeOptionId,
  exclusiveFillDigest,
  PACKAGE_OFFER_TYPES,
  packageOfferDigest,
  packageOfferTypedData,
  recoverPackageOfferSigner,
  takerAddressHash,
} from '../../../shared/protocol';
import * as ex from './examples';

/**
 * Known-answer vectors: the worked examples printed in docs/PROTOCOL.md. If one of these
 * changes, the protocol changed: update the document, and expect every signer to break.
 */
const ctx = { chainId: ex.CHAIN_ID, mothership: ex.MOTHERSHIP };

describe('protocol known-answer vectors (docs/PROTOCOL.md)', () => {
  it('directionsHash([1,0])', () => {
    expect(encodeAbiParameters([{ type: 'uint8[]' }], [[1, 0]])).toBe(
      '0x' +
        '0000000000000000000000000000000000000000000000000000000000000020' +
        '0000000000000000000000000000000000000000000000000000000000000002' +
        '0000000000000000000000000000000000000000000000000000000000000001' +
        '0000000000000000000000000000000000000000000000000000000000000000',
    );
    expect(directionsHash([1, 0])).toBe('0x61a10db6caa3bf0b2eca21afe0aa8535f3fac8a60110e923af156fb70a2d3eb8');
  });

  it('takerAddressHash(taker, salt, [1,0], zero referrer)', () => {
    expect(takerAddressHash(ex.TAKER, ex.SALT, [1, 0], zeroAddress)).toBe('0x1103ec1898c95793a468e133c599a7e180cd86b4986d390102904f97d38606a0');
    // The referrer defaults to the zero address, and the taker may be given in any case.
    expect(takerAddressHash(ex.TAKER.toLowerCase() as `0x${string}`, ex.SALT, [1, 0])).toBe(ex.TAKER_HASH);
    expect(takerAddressHash(ex.TAKER, ex.SALT, [1, 0], ex.MAKER)).not.toBe(ex.TAKER_HASH);
  });

  it('PackageOffer digest and the maker signature', async () => {
    expect(packageOfferDigest(ctx, ex.OFFER)).toBe('0x922132a062a63f4ba149b00fc11c10bd3b5920575276a2f8d6a531c615fd2d95');
    const signature = await privateKeyToAccount(ex.MAKER_KEY).signTypedData(packageOfferTypedData(ex.CHAIN_ID, ex.MOTHERSHIP, ex.OFFER));
    expect(signature).toBe(
      '0x478e4fc7a3f95b4fd40f4be986f56d7b0ad00c9de68850cd63a06f178c56a1dd464aaa3db8d40e562d5149df53d154467369c0e7c447e696965f32322ba9c5121b',
    );
    await expect(recoverPackageOfferSigner(ctx, ex.OFFER, signature)).resolves.toBe(ex.MAKER);
  });

  it('DutchFillRequest digest', () => {
    expect(dutchFillDigest(ctx, ex.DUTCH)).toBe('0x658ef7895ce81f059e4632f89be78c53c0434c5c11b57a0699ec4a26506daf43');
  });

  it('ExclusiveFill digest', () => {
    expect(ex.EXCLUSIVE.exclusiveFillId).toBe('0x67a50224cb1cb7b7a248ecab8c59a27b763d809484f2f778e35d18be9cc42d58');
    expect(exclusiveFillDigest(ctx, ex.EXCLUSIVE)).toBe('0x789e1b514c94cf248fec33eda5906bd4d38dc35ab19a88ae6a1dbe3719e692fc');
  });

  it('option ids', () => {
    const call = encodeOptionId({ option_type: 0, strike_wad: 3_000_000_000n, expiry_timestamp: ex.EXPIRY, start_exercise_timestamp: 0 });
    expect(call.toString(16).padStart(64, '0')).toBe('000000000000000000006955b9000000000000000000000000000000b2d05e00');
    const europeanPut = encodeOptionId({ option_type: 1, strike_wad: 2_500_000_000n, expiry_timestamp: ex.EXPIRY, start_exercise_timestamp: ex.EXPIRY });
    expect(europeanPut.toString(16).padStart(64, '0')).toBe('00000001006955b900006955b90000000000000000000000000000009502f900');
  });
});

describe('EIP-712 type strings (docs/PROTOCOL.md, ProtocolHashing.sol)', () => {
  const LEG =
    'Leg(address pair6909Contract,uint8 optionType,uint8 structure,uint40 startExerciseTimestamp,uint40 expiryTimestamp,uint144 strikeWad,uint256 amount)';

  it.each([
    [
      'DutchFillRequest',
      DUTCH_FILL_REQUEST_TYPES,
      'DutchFillRequest(Leg[] intents,TokenTriple[] tokens,DutchPremium dutchPremium,uint40 auctionEnd,bytes32 makerAddressHash,uint256 takerNonce,address requiredAuthority,address requiredDutchAuthority,address referrer)' +
        'DutchPremium(address token,bool makerPaysTaker,uint256 startPremium,uint256 endPremium,uint256 decayRate,uint40 auctionStart)' +
        LEG +
        'TokenTriple(address token0,address token1,address premiumToken)',
      '0xee533d068894a939053c9e1a658445e0aeb105be629bb3219f6cffc60bc8b590',
    ],
    [
      'PackageOffer',
      PACKAGE_OFFER_TYPES,
      'PackageOffer(bytes32 takerAddressHash,Leg[] legs,uint256 packagePremium,bool makerPaysTaker,address premiumToken,address maker,uint256 nonce,uint40 deadline)' +
        LEG,
      '0xb7fb6797c55dee9902aff9c9fc5bae79f70f190e22d1c35edf8b2012cecada81',
    ],
    [
      'ExclusiveFill',
      EXCLUSIVE_FILL_TYPES,
      'ExclusiveFill(bytes32 exclusiveFillId,address maker,bytes32[] orderIds,address rewardDestination,bytes32 intentDataHash,uint40 expireTime)',
      '0x053b351228f2f7390479624c16eb10cd6b0182704221f9134e24615a30ec3b81',
    ],
    ['Leg', PACKAGE_OFFER_TYPES, LEG, '0xf68fed7120e28e38d6014c75a2e6b78610e8eb36a46359362b9cb41bc5ccda6f'],
    [
      'DutchAward',
      DUTCH_AWARD_TYPES,
      'DutchAward(bytes32 requestDigest,address filler,uint256 improvementBps,uint40 notBefore,uint40 exclusiveEnd)',
      '0x24db2eddbd95d9334df741be347d0b06c9f8b117d700d5107a828f8c6ce56964',
    ],
  ] as const)('%s', (primaryType, types, typeString, typeHash) => {
    expect(eip712TypeString(types, primaryType)).toBe(typeString);
    expect(keccak256(stringToBytes(typeString))).toBe(typeHash);
  });
});
