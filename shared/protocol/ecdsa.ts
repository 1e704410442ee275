import { bytesToHex, hashTypedData, hexToBytes, recoverAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount, publicKeyToAddress, type PrivateKeyAccount } from 'viem/accounts';
import { optionalBinding } from './native-binding';

/**
 * Signing and signer recovery over a 32-byte digest with 65-byte (r ‖ s ‖ v) signatures, through
 * libsecp256k1 (the `secp256k1` package's prebuilt binding) when it loads, else through viem's
 * JavaScript curve. Recovery is most of the CPU an offer, a Dutch request or an exclusive fill
 * costs the API: about 1.6 ms in JavaScript against 0.06 ms native on the development machine
 * (docs/PERFORMANCE.md, "Offer path"). Both answer the same address or both refuse
 * (test/unit/protocol/ecdsa.test.ts compares them on canonical, high-s, v 0/1/27/28 and broken
 * signatures); the canonical-form rules the contracts apply are checked before either is asked
 * (signatureProblem in ./signatures). Signing is RFC 6979 deterministic with low s in both, so
 * the service's signatures are the same bytes whichever signs (tested too).
 */
interface Secp256k1Binding {
  ecdsaRecover(signature: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
}

const binding = optionalBinding<Secp256k1Binding>('secp256k1/bindings');

/** Which implementation recovers signers in this process: a role logs it at start. */
export const ecdsaBackend: 'libsecp256k1' | 'javascript' = binding ? 'libsecp256k1' : 'javascript';

/** The recovery bit of a signature's last byte, as viem reads it: 0/1, or 27/28. */
function recoveryBit(v: number): 0 | 1 {
  if (v === 0 || v === 27) return 0;
  if (v === 1 || v === 28) return 1;
  throw new Error('Invalid yParityOrV value');
}

/** The checksummed address that signed `digest`; throws when the signature recovers nothing. */
export async function recoverDigestSigner(digest: Hex, signature: Hex): Promise<Address> {
  if (!binding) return recoverDigestSignerJs(digest, signature);
  const bytes = hexToBytes(signature);
  if (bytes.length !== 65) throw new Error('invalid signature length');
  const publicKey = binding.ecdsaRecover(bytes.subarray(0, 64), recoveryBit(bytes[64]), hexToBytes(digest), false);
  return publicKeyToAddress(`0x${Buffer.from(publicKey).toString('hex')}`);
}

/** viem's JavaScript recovery, always: the reference the native path is tested against. */
export function recoverDigestSignerJs(digest: Hex, signature: Hex): Promise<Address> {
  return recoverAddress({ hash: digest, signature });
}

/**
 * viem's account for `privateKey`, whose digest and typed-data signatures go through
 * libsecp256k1 when it loaded (the service signs each Dutch award and exclusive fill: about
 * 0.4 ms of CPU each in JavaScript); every other method is viem's. Same bytes either way.
 */
export function signingAccount(privateKey: Hex): PrivateKeyAccount {
  const account = privateKeyToAccount(privateKey);
  if (!binding) return account;
  const native = binding;
  const key = hexToBytes(privateKey);
  const signDigest = (hash: Hex): Hex => {
    const { signature, recid } = native.ecdsaSign(hexToBytes(hash), key);
    return `${bytesToHex(signature)}${recid === 0 ? '1b' : '1c'}`;
  };
  return {
    ...account,
    sign: async ({ hash }) => signDigest(hash),
    signTypedData: async (typedData) => signDigest(hashTypedData(typedData)),
  };
}
