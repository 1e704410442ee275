import type { DataSource } from 'typeorm';
import { In, IsNull } from 'typeorm';
import { ApiKeyEntity } from './identity.entities';
import type { OrgKind } from './identity.types';

/** The partial unique index that keeps one active key per bot wallet (migration 1764000500000). */
const ONE_ACTIVE_PER_ADDRESS = 'api_keys_one_active_per_address';

/** An insert lost the race for a bot wallet to another key. */
export class KeyAddressTakenError extends Error {
  constructor() {
    super('bot address already has an active key');
  }
}

/** last_used_at is refreshed at most this often, so a busy bot does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

/** TypeORM's raw UPDATE ... RETURNING answers [rows, count]. */
function updatedRows<T>(out: unknown[]): T[] {
  return (Array.isArray(out[0]) ? out[0] : out) as T[];
}

/** Queries of maker and taker API keys. */
export class ApiKeyRepository {
  constructor(private readonly ds: DataSource) {}

  async insert(k: {
    id: string;
    organizationId: string;
    kind: OrgKind;
    name: string;
    address: string | null;
    secretHash: string;
    createdBy: string;
    verified?: boolean;
  }): Promise<ApiKeyEntity> {
    const repo = this.ds.getRepository(ApiKeyEntity);
    try {
      await repo.insert({
        id: k.id,
        organization_id: k.organizationId,
        kind: k.kind,
        name: k.name,
        address: k.address,
        secret_hash: k.secretHash,
        created_by: k.createdBy,
        verified_at: k.verified ? new Date() : null,
      });
    } catch (err) {
      const pg = err as { code?: string; constraint?: string; driverError?: { constraint?: string } };
      if (pg.code === '23505' && (pg.constraint ?? pg.driverError?.constraint) === ONE_ACTIVE_PER_ADDRESS) throw new KeyAddressTakenError();
      throw err;
    }
    return repo.findOneByOrFail({ id: k.id });
  }

  /** The active key bound to this wallet, in any organization. */
  async findActiveByAddress(address: string): Promise<ApiKeyEntity | null> {
    return this.ds
      .getRepository(ApiKeyEntity)
      .createQueryBuilder('k')
      .where('lower(k.address) = lower(:address) AND k.revoked_at IS NULL', { address })
      .getOne();
  }

  /** The active, verified maker key bound to this wallet, in any organization. */
  async findVerifiedByAddress(address: string): Promise<ApiKeyEntity | null> {
    return this.ds
      .getRepository(ApiKeyEntity)
      .createQueryBuilder('k')
      .where("lower(k.address) = lower(:address) AND k.revoked_at IS NULL AND k.kind = 'maker' AND k.verified_at IS NOT NULL", { address })
      .getOne();
  }

  /** Marks a maker key verified; the row as it is now, or null when it is not active. */
  async markVerified(id: string): Promise<ApiKeyEntity | null> {
    await this.ds.query(`UPDATE api_keys SET verified_at = COALESCE(verified_at, now()) WHERE id = $1 AND kind = 'maker' AND revoked_at IS NULL`, [id]);
    return this.findActive(id, 'maker');
  }

  /** Verifies the unverified active maker keys of this bot wallet (its own SIWE sign-in proves it); their ids. */
  async verifyAllOf(address: string): Promise<string[]> {
    const out: unknown[] = await this.ds.query(
      `UPDATE api_keys SET verified_at = now() WHERE kind = 'maker' AND revoked_at IS NULL AND verified_at IS NULL AND lower(address) = lower($1) RETURNING id`,
      [address],
    );
    return updatedRows<{ id: string }>(out).map((r) => r.id);
  }

  /**
   * Removes unverified active maker keys of this wallet: a key the wallet never agreed to gives
   * way when the wallet proves itself for another one. The removed keys.
   */
  async revokeUnverifiedOf(address: string): Promise<{ id: string }[]> {
    const out: unknown[] = await this.ds.query(
      `UPDATE api_keys SET revoked_at = now() WHERE kind = 'maker' AND revoked_at IS NULL AND verified_at IS NULL AND lower(address) = lower($1) RETURNING id`,
      [address],
    );
    return updatedRows<{ id: string }>(out);
  }

  /** A key that has not been removed. */
  findActive(id: string, kind: OrgKind): Promise<ApiKeyEntity | null> {
    return this.ds.getRepository(ApiKeyEntity).findOneBy({ id, kind, revoked_at: IsNull() });
  }

  /** Which of these key ids (of either kind) are still active; queried in chunks so a long list stays one cheap index scan each. */
  async activeIds(ids: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const valid = ids.filter((id) => uuid.test(id));
    for (let i = 0; i < valid.length; i += 1000) {
      const rows = await this.ds.getRepository(ApiKeyEntity).find({ select: { id: true }, where: { id: In(valid.slice(i, i + 1000)), revoked_at: IsNull() } });
      for (const r of rows) out.add(r.id);
    }
    return out;
  }

  listActive(organizationId: string, kind: OrgKind): Promise<ApiKeyEntity[]> {
    return this.ds.getRepository(ApiKeyEntity).find({
      where: { organization_id: organizationId, kind, revoked_at: IsNull() },
      order: { created_at: 'ASC', id: 'ASC' },
    });
  }

  /** Marks the key removed; null when it is not an active key of that organization. */
  async revoke(id: string, organizationId: string, kind: OrgKind): Promise<ApiKeyEntity | null> {
    const rows: ApiKeyEntity[] = await this.ds.query(
      `UPDATE api_keys SET revoked_at = now()
        WHERE id = $1 AND organization_id = $2 AND kind = $3 AND revoked_at IS NULL
        RETURNING id, organization_id, kind, name, address, secret_hash, created_by, created_at, last_used_at, revoked_at, verified_at`,
      [id, organizationId, kind],
    );
    // TypeORM's raw UPDATE answers [rows, count].
    const updated = (Array.isArray(rows[0]) ? rows[0] : rows) as ApiKeyEntity[];
    return updated[0] ?? null;
  }

  /** Records a use, unless one was recorded within the last minute. Returns the time stored, if any. */
  async touch(key: ApiKeyEntity): Promise<Date | null> {
    const now = Date.now();
    if (key.last_used_at && now - key.last_used_at.getTime() < TOUCH_EVERY_MS) return null;
    const at = new Date(now);
    await this.ds.getRepository(ApiKeyEntity).update({ id: key.id }, { last_used_at: at });
    return at;
  }
}
