import type { Queryable } from '../db';

/** The Redis epochs Postgres records (shared/platform/redis/redis-epoch.ts): one row per epoch opened. */
export class RedisEpochRepository {
  constructor(private readonly db: Queryable) {}

  /** The latest epoch opened, as text, or null before the first. */
  async last(): Promise<string | null> {
    const [{ last }] = (await this.db.query(`SELECT max(epoch)::text AS last FROM redis_epochs`)) as { last: string | null }[];
    return last;
  }

  /** Records a new epoch and answers its number. */
  async open(reason: string, openedBy: string): Promise<number> {
    const [{ epoch }] = (await this.db.query(`INSERT INTO redis_epochs (reason, opened_by) VALUES ($1, $2) RETURNING epoch::int AS epoch`, [
      reason,
      openedBy,
    ])) as { epoch: number }[];
    return epoch;
  }
}
