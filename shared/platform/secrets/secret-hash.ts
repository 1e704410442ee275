import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * How every bearer secret (API key secrets, stream tokens) is stored: sha-256, lower-case hex.
 * The secrets carry >= 128 random bits, so a fast hash is enough; no slow KDF is needed.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Whether a presented secret hashes to `storedHash`, compared in constant time. */
export function secretMatches(presented: string | undefined, storedHash: string): boolean {
  if (!presented || presented.length > 256) return false;
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
