import { keccak256, numberToHex, stringToBytes, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ecdsaBackend, recoverDigestSigner, recoverDigestSignerJs, signingAccount } from '../../../shared/protocol/ecdsa';
import { dutchAwardTypedData } from '../../../shared/protocol';
import { SECP256K1_N } from '../../../shared/protocol';

const pad = (n: bigint) => numberToHex(n, { size: 32 }).slice(2);
const parts = (sig: Hex) => ({ r: BigInt(`0x${sig.slice(2, 66)}`), s: BigInt(`0x${sig.slice(66, 130)}`), v: parseInt(sig.slice(130), 16) });
const join = (r: bigint, s: bigint, v: number): Hex => `0x${pad(r)}${pad(s)}${v.toString(16).padStart(2, '0')}`;

/** What one implementation answers: the address, or that it refused. */
async function outcome(recover: (d: Hex, s: Hex) => Promise<string>, digest: Hex, sig: Hex): Promise<string> {
  try {
    return await recover(digest, sig);
  } catch {
    return 'refused';
  }
}

/** Deterministic private keys and digests, so a failure names the case that broke. */
const key = (i: number) => keccak256(stringToBytes(`ecdsa-test-key-${i}`));
const digestOf = (i: number) => keccak256(stringToBytes(`ecdsa-test-digest-${i}`));

describe('signer recovery: libsecp256k1 against viem', () => {
  it('loads the native binding on this machine (the prebuilt linux-x64 one ships with the package)', () => {
    expect(ecdsaBackend).toBe('libsecp256k1');
  });

  it('recovers the signer of 200 digests signed by 200 keys, with v as 27/28 and as 0/1', async () => {
    for (let i = 0; i < 200; i++) {
      const account = privateKeyToAccount(key(i));
      const digest = digestOf(i);
      const sig = await account.sign({ hash: digest });
      const { r, s, v } = parts(sig);
      for (const form of [sig, join(r, s, v - 27)]) {
        expect(await recoverDigestSigner(digest, form)).toBe(account.address);
        expect(await recoverDigestSignerJs(digest, form)).toBe(account.address);
      }
    }
  });

  it('answers what viem answers for broken and malleable signatures', async () => {
    const account = privateKeyToAccount(key(0));
    const digest = digestOf(0);
    const { r, s, v } = parts(await account.sign({ hash: digest }));
    const cases: Record<string, Hex> = {
      'high s (the malleable twin, v flipped)': join(r, SECP256K1_N - s, v === 27 ? 28 : 27),
      'the wrong v': join(r, s, v === 27 ? 28 : 27),
      'v = 2': join(r, s, 2),
      'v = 29': join(r, s, 29),
      'r = 0': join(0n, s, v),
      's = 0': join(r, 0n, v),
      'r = n': join(SECP256K1_N, s, v),
      's = n': join(r, SECP256K1_N, v),
      'r = 2^256 - 1': join(2n ** 256n - 1n, s, v),
      'r not an x on the curve': join(5n, s, v),
      'another digest': join(r, s, v),
      '64 bytes': `0x${pad(r)}${pad(s)}`,
      '66 bytes': `${join(r, s, v)}00`,
    };
    for (const [name, sig] of Object.entries(cases)) {
      const d = name === 'another digest' ? digestOf(1) : digest;
      const native = await outcome(recoverDigestSigner, d, sig);
      const js = await outcome(recoverDigestSignerJs, d, sig);
      expect({ name, native }).toEqual({ name, native: js });
    }
    // The cases are not all refusals: some recover someone (not the signer).
    const recovered = await outcome(recoverDigestSigner, digest, cases['the wrong v']);
    expect(recovered).not.toBe('refused');
    expect(recovered).not.toBe(account.address);
  });

  it("signs what viem's account signs, byte for byte: 100 digests, and a Dutch award's typed data", async () => {
    for (let i = 0; i < 100; i++) {
      const viemAccount = privateKeyToAccount(key(i));
      const fast = signingAccount(key(i));
      expect(fast.address).toBe(viemAccount.address);
      const digest = digestOf(i);
      expect(await fast.sign({ hash: digest })).toBe(await viemAccount.sign({ hash: digest }));
    }
    const award = dutchAwardTypedData(31337, '0x5FbDB2315678afecb367f032d93F642f64180aa3', {
      requestDigest: digestOf(7),
      filler: privateKeyToAccount(key(8)).address,
      improvementBps: 25n,
      notBefore: 1_900_000_000,
      exclusiveEnd: 1_900_000_030,
    });
    expect(await signingAccount(key(9)).signTypedData(award)).toBe(await privateKeyToAccount(key(9)).signTypedData(award));
  });
});
