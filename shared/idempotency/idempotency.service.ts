import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { ConflictError, ValidationError } from '../errors';

export interface StoredResponse<T> {
  status: number;
  body: T;
  /** True when this is a replay of an earlier request with the same key. */
  replayed: boolean;
}

const KEY = /^[\x21-\x7e]{1,255}$/;
const UNIQUE_VIOLATION = '23505';

/** Canonical hash of a JSON body: keys sorted, so field order does not make a "different" request. */
export function requestHash(body: unknown): string {
  const canon = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canon)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]))
        : v;
  return createHash('sha256').update(JSON.stringify(canon(body))).digest('hex');
}

/**
 * `Idempotency-Key` support. The first response is stored in the same transaction as the work
 * it answers for, so a retry gets that response and a concurrent duplicate cannot do the work
 * twice (the primary key on (scope, key) decides the winner).
 */
export class IdempotencyService {
  constructor(private readonly ds: DataSource) {}

  static checkKey(key: string): void {
    if (!KEY.test(key)) throw ValidationError.field('Idempotency-Key', 'must be 1-255 printable ASCII characters');
  }

  async run<T>(
    scope: string,
    key: string,
    body: unknown,
    work: (m: EntityManager) => Promise<{ status: number; body: T }>,
  ): Promise<StoredResponse<T>> {
    IdempotencyService.checkKey(key);
    const hash = requestHash(body);
    const earlier = await this.find<T>(scope, key, hash);
    if (earlier) return earlier;
    try {
      return await this.ds.transaction(async (m) => {
        const out = await work(m);
        await m.query(`INSERT INTO idempotency_keys (scope, key, request_hash, status, response) VALUES ($1, $2, $3, $4, $5)`, [
          scope,
          key,
          hash,
          out.status,
          JSON.stringify(out.body),
        ]);
        return { ...out, replayed: false };
      });
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      // A concurrent request with the same key committed first; its work stands, ours rolled back.
      const winner = await this.find<T>(scope, key, hash);
      if (winner) return winner;
      throw err;
    }
  }

  /** Forgets first responses older than `ttlHours`; a retry after that is a new request. */
  async purge(ttlHours: number): Promise<number> {
    const [, count]: [unknown, number] = await this.ds.query(`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)`, [ttlHours]);
    return count;
  }

  private async find<T>(scope: string, key: string, hash: string): Promise<StoredResponse<T> | null> {
    const rows: { request_hash: string; status: number; response: T }[] = await this.ds.query(
      `SELECT request_hash, status, response FROM idempotency_keys WHERE scope = $1 AND key = $2`,
      [scope, key],
    );
    if (rows.length === 0) return null;
    if (rows[0].request_hash !== hash) {
      throw new ConflictError('Idempotency-Key was already used with a different request body', 'idempotency_key_reused');
    }
    return { status: rows[0].status, body: rows[0].response, replayed: true };
  }
}
