import fc from 'fast-check';
import { toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DutchAwardSigner, dutchAwardDigest, dutchAwardTypedData, recoverDutchAwardSigner, type DutchAward } from '../../../shared/protocol';

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => toHex(b) as Hex);
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => toHex(b) as Address);
const uint40 = fc.integer({ min: 0, max: 2 ** 40 - 1 });
const award = fc.record<DutchAward>({
  requestDigest: bytes32,
  filler: address,
  improvementBps: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
  notBefore: uint40,
  exclusiveEnd: uint40,
});

describe('DutchAwardSigner', () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const signer = new DutchAwardSigner(account);

  it('gives the typed-data digest and signature, byte for byte, on random awards, chains and motherships', async () => {
    await fc.assert(
      fc.asyncProperty(award, fc.integer({ min: 1, max: 2 ** 31 }), address, async (a, chainId, mothership) => {
        expect(signer.digest(chainId, mothership, a)).toBe(dutchAwardDigest({ chainId, mothership }, a));
        const fast = await signer.sign(chainId, mothership, a);
        expect(fast).toBe(await account.signTypedData(dutchAwardTypedData(chainId, mothership, a)));
        await expect(recoverDutchAwardSigner({ chainId, mothership }, a, fast)).resolves.toBe(account.address);
      }),
      { numRuns: 60 },
    );
  });

  it("keeps one domain per chain and mothership: a second chain does not reuse the first one's", async () => {
    const a: DutchAward = {
      requestDigest: `0x${'ab'.repeat(32)}`,
      filler: '0x0000000000000000000000000000000000000000',
      improvementBps: 0n,
      notBefore: 1,
      exclusiveEnd: 1,
    };
    const mothership: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    const first = signer.digest(1, mothership, a);
    expect(signer.digest(2, mothership, a)).not.toBe(first);
    expect(signer.digest(1, mothership.toLowerCase() as Address, a)).toBe(first);
  });
});
