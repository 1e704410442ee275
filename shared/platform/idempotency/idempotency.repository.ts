import type { DataSource, EntityManager } from 'typeorm';
import type { Queryable } from '../db';

/** A stored first response: found by its derived lookup id, readable only with the caller's keys. */
export interface IdempotencyRecord {
  request_mac: string;
  status: number;
  sealed_response: string;
}

/** Queries of `idempotency_keys`. */
export class IdempotencyRepository {
  constructor(private readonly ds: DataSource) {}

  /** Runs the guarded work and the record's insert in one transaction. */
  transaction<R>(fn: (m: EntityManager) => Promise<R>): Promise<R> {
    return this.ds.transaction(fn);
  }

  async find(scope: string, lookup: string): Promise<IdempotencyRecord | null> {
    const rows: IdempotencyRecord[] = await this.ds.query(
      `SELECT request_mac, status, sealed_response FROM idempotency_keys WHERE scope = $1 AND lookup_hash = $2`,
      [scope, lookup],
    );
    return rows[0] ?? null;
  }

  /** Inside the work's transaction; a concurrent duplicate fails here on the primary key. */
  async insert(m: Queryable, scope: string, lookup: string, rec: IdempotencyRecord): Promise<void> {
    await m.query(`INSERT INTO idempotency_keys (scope, lookup_hash, request_mac, status, sealed_response) VALUES ($1, $2, $3, $4, $5)`, [
      scope,
      lookup,
      rec.request_mac,
      rec.status,
      rec.sealed_response,
    ]);
  }

  /** Deletes records older than `ttlHours`; returns how many. */
  async purgeOlderThan(ttlHours: number): Promise<number> {
    const [, count]: [unknown, number] = await this.ds.query(`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)`, [ttlHours]);
    return count;
  }
}
