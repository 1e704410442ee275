import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 8192;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * `n` bytes from the operating system's CSPRNG, like crypto.randomBytes, drawn from a pool
 * refilled 8 KB at a time: each synchronous randomBytes call cost ~20 µs on our VMs, twice
 * on every quote create (salt and stream token). Every byte is handed out once and copied out
 * of the pool, so no two callers ever share bytes. (Node's own randomUUID buffers the same way.)
 */
export function pooledRandomBytes(n: number): Buffer {
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new RangeError(`pooledRandomBytes takes 1 to 256 bytes, got ${n}`);
  if (offset + n > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const out = Buffer.from(pool.subarray(offset, offset + n));
  pool.fill(0, offset, offset + n);
  offset += n;
  return out;
}
