import { timingSafeEqual } from 'node:crypto';
import { hashStreamToken } from '../streams';

/** Constant-time check of a presented stream token against the hash a quote row stores. */
export function streamTokenMatches(presented: string | undefined, storedHash: string): boolean {
  if (!presented || presented.length > 256) return false;
  const a = Buffer.from(hashStreamToken(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
