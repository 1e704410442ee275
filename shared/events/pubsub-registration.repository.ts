import type { Queryable } from '../platform/db';

/** A registration as Postgres keeps it for a rebuild of Redis (`lapses`: unix ms, as text). */
export interface StoredRegistration<Tier extends string> {
  chain_id: number;
  tier: Tier;
  address: string;
  key_id: string | null;
  lapses: string;
}

/** The Postgres copies of pubsub registrations (shared/events/pubsub-registrations.ts keeps them in Redis), of tiers `Tier`. */
export class PubsubRegistrationRepository<Tier extends string> {
  constructor(private readonly db: Queryable) {}

  /** Writes (or refreshes) a registration; `lapsesMs`: unix ms. */
  async upsert(chainId: number, tier: Tier, address: string, keyId: string | null, lapsesMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO pubsub_registrations (chain_id, tier, address, key_id, lapses_at) VALUES ($1, $2, $3, $4, to_timestamp($5 / 1000.0))
       ON CONFLICT (chain_id, tier, address) DO UPDATE SET key_id = EXCLUDED.key_id, lapses_at = EXCLUDED.lapses_at`,
      [chainId, tier, address, keyId, lapsesMs],
    );
  }

  /** Deletes the registrations that lapsed; answers how many. */
  async deleteLapsed(): Promise<number> {
    const [, count]: [unknown, number] = await this.db.query(`DELETE FROM pubsub_registrations WHERE lapses_at <= now()`);
    return count;
  }

  /** Deletes the registrations made with these keys. */
  async deleteByKeys(keyIds: readonly string[]): Promise<void> {
    await this.db.query(`DELETE FROM pubsub_registrations WHERE key_id = ANY($1)`, [[...keyIds]]);
  }

  /** Deletes the registrations made with this key. */
  async deleteByKey(keyId: string): Promise<void> {
    await this.db.query(`DELETE FROM pubsub_registrations WHERE key_id = $1`, [keyId]);
  }

  /** Every registration kept. */
  all(): Promise<StoredRegistration<Tier>[]> {
    return this.db.query(`SELECT chain_id, tier, address, key_id, (extract(epoch FROM lapses_at) * 1000)::bigint::text AS lapses FROM pubsub_registrations`);
  }
}
