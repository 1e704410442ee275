import type { DataSource, EntityManager } from 'typeorm';
import { ConflictError, ValidationError } from '../errors';
import { IdempotencyRepository } from './idempotency.repository';
import { deriveReplayKeys, open, requestMac, seal, type ReplayKeys } from './sealed-response';

export interface StoredResponse<T> {
  status: number;
  body: T;
  /** True when this is a replay of an earlier request with the same key. */
  replayed: boolean;
}

const KEY = /^[\x21-\x7e]{1,255}$/;
const UNIQUE_VIOLATION = '23505';

/**
 * `Idempotency-Key` support, scoped to the caller. A key means something only together with
 * the caller that sent it (a credential, else the client IP): the record is found by a value
 * derived from both, and the first response, which carries the stream token and salt, is stored
 * encrypted under a key derived from both. Another caller sending the same key finds nothing
 * and gets a new resource; the database alone yields no secret.
 *
 * The first response is stored in the same transaction as the work it answers for, so a retry
 * gets that response and a concurrent duplicate cannot do the work twice (the primary key on
 * (scope, lookup) decides the winner).
 */
export class IdempotencyService {
  private readonly repo: IdempotencyRepository;

  constructor(ds: DataSource) {
    this.repo = new IdempotencyRepository(ds);
  }

  static checkKey(key: string): void {
    if (!KEY.test(key)) throw ValidationError.field('Idempotency-Key', 'must be 1-255 printable ASCII characters');
  }

  async run<T>(
    scope: string,
    caller: string,
    key: string,
    body: unknown,
    work: (m: EntityManager) => Promise<{ status: number; body: T }>,
  ): Promise<StoredResponse<T>> {
    IdempotencyService.checkKey(key);
    const keys = deriveReplayKeys(scope, caller, key);
    const mac = requestMac(keys, body);
    const earlier = await this.replay<T>(scope, keys, mac);
    if (earlier) return earlier;
    try {
      return await this.repo.transaction(async (m) => {
        const out = await work(m);
        await this.repo.insert(m, scope, keys.lookup, { request_mac: mac, status: out.status, sealed_response: seal(keys, out.body) });
        return { ...out, replayed: false };
      });
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      // A concurrent request with the same key committed first; its work stands, ours rolled back.
      const winner = await this.replay<T>(scope, keys, mac);
      if (winner) return winner;
      throw err;
    }
  }

  /** Forgets first responses older than `ttlHours`; a retry after that is a new request. */
  purge(ttlHours: number): Promise<number> {
    return this.repo.purgeOlderThan(ttlHours);
  }

  private async replay<T>(scope: string, keys: ReplayKeys, mac: string): Promise<StoredResponse<T> | null> {
    const rec = await this.repo.find(scope, keys.lookup);
    if (!rec) return null;
    if (rec.request_mac !== mac) {
      throw new ConflictError('Idempotency-Key was already used with a different request body', 'idempotency_key_reused');
    }
    return { status: rec.status, body: open<T>(keys, rec.sealed_response), replayed: true };
  }
}
