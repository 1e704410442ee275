import type { DataSource, EntityManager } from 'typeorm';
import type { Queryable } from '../platform/db';
import { OrganizationEntity, OrganizationMemberEntity } from './identity.entities';
import type { Membership, OrgKind, Role } from './identity.types';

/** Which uniqueness rule a failed insert broke, from the Postgres constraint name. */
export type MemberConflict = 'one_per_kind' | 'already_member' | 'one_admin';

export class MemberConflictError extends Error {
  constructor(readonly conflict: MemberConflict) {
    super(conflict);
  }
}

const CONSTRAINTS: Record<string, MemberConflict> = {
  organization_members_one_per_kind: 'one_per_kind',
  organization_members_pkey: 'already_member',
  organization_members_one_admin: 'one_admin',
};

function rethrowConflict(err: unknown): never {
  const pg = err as { code?: string; constraint?: string; driverError?: { constraint?: string } };
  const name = pg.constraint ?? pg.driverError?.constraint;
  if (pg.code === '23505' && name && CONSTRAINTS[name]) throw new MemberConflictError(CONSTRAINTS[name]);
  throw err;
}

/** Queries of organizations and their members. */
export class OrganizationRepository {
  constructor(private readonly ds: DataSource) {}

  /** Creates the organization and its first member in one transaction. */
  async create(org: { id: string; kind: OrgKind; name: string }, first: { address: string; role: Role }): Promise<OrganizationEntity> {
    try {
      return await this.ds.transaction(async (m) => {
        await m.insert(OrganizationEntity, org);
        await m.insert(OrganizationMemberEntity, { organization_id: org.id, kind: org.kind, address: first.address, role: first.role });
        return m.findOneByOrFail(OrganizationEntity, { id: org.id });
      });
    } catch (err) {
      rethrowConflict(err);
    }
  }

  find(id: string): Promise<OrganizationEntity | null> {
    return this.ds.getRepository(OrganizationEntity).findOneBy({ id });
  }

  members(organizationId: string): Promise<OrganizationMemberEntity[]> {
    return this.ds.getRepository(OrganizationMemberEntity).find({ where: { organization_id: organizationId }, order: { created_at: 'ASC', address: 'ASC' } });
  }

  async list(): Promise<{ org: OrganizationEntity; members: OrganizationMemberEntity[] }[]> {
    const orgs = await this.ds.getRepository(OrganizationEntity).find({ order: { created_at: 'ASC', id: 'ASC' } });
    const members = await this.ds.getRepository(OrganizationMemberEntity).find({ order: { created_at: 'ASC', address: 'ASC' } });
    return orgs.map((org) => ({ org, members: members.filter((x) => x.organization_id === org.id) }));
  }

  async addMember(org: { id: string; kind: OrgKind }, address: string, role: Role): Promise<void> {
    try {
      await this.ds.getRepository(OrganizationMemberEntity).insert({ organization_id: org.id, kind: org.kind, address, role });
    } catch (err) {
      rethrowConflict(err);
    }
  }

  /** The wallet's organization of this kind, if any. */
  async membership(address: string, kind: OrgKind, m: EntityManager = this.ds.manager): Promise<Membership | null> {
    const row = await m
      .createQueryBuilder(OrganizationMemberEntity, 'mem')
      .innerJoin(OrganizationEntity, 'org', 'org.id = mem.organization_id')
      .select(['mem.organization_id AS organization_id', 'org.name AS name', 'mem.role AS role', 'mem.address AS address'])
      .where('mem.address = :address AND mem.kind = :kind', { address, kind })
      .getRawOne<{ organization_id: string; name: string; role: Role; address: `0x${string}` }>();
    if (!row) return null;
    return { organizationId: row.organization_id, organizationName: row.name, kind, address: row.address, role: row.role };
  }

  /** Every organization the wallet is a member of, of either kind. */
  async memberships(address: string): Promise<Membership[]> {
    const rows = await this.ds
      .createQueryBuilder(OrganizationMemberEntity, 'mem')
      .innerJoin(OrganizationEntity, 'org', 'org.id = mem.organization_id')
      .select(['mem.organization_id AS organization_id', 'org.name AS name', 'mem.kind AS kind', 'mem.role AS role', 'mem.address AS address'])
      .where('mem.address = :address', { address })
      .getRawMany<{ organization_id: string; name: string; kind: OrgKind; role: Role; address: `0x${string}` }>();
    return rows.map((r) => ({ organizationId: r.organization_id, organizationName: r.name, kind: r.kind, address: r.address, role: r.role }));
  }

  /**
   * Moves the admin role to `newAdmin`: the current admin (if any) becomes a member, and
   * `newAdmin` joins or is promoted. Returns the previous admin's address.
   */
  async transferAdmin(org: { id: string; kind: OrgKind }, newAdmin: string): Promise<string | null> {
    try {
      return await this.ds.transaction(async (m) => {
        // Row lock on the organization serialises concurrent transfers.
        await m.query(`SELECT id FROM organizations WHERE id = $1 FOR UPDATE`, [org.id]);
        const repo = m.getRepository(OrganizationMemberEntity);
        const previous = await repo.findOneBy({ organization_id: org.id, role: 'admin' });
        if (previous) await repo.update({ organization_id: org.id, address: previous.address }, { role: 'member' });
        const existing = await repo.findOneBy({ organization_id: org.id, address: newAdmin });
        if (existing) await repo.update({ organization_id: org.id, address: newAdmin }, { role: 'admin' });
        else await repo.insert({ organization_id: org.id, kind: org.kind, address: newAdmin, role: 'admin' });
        return previous?.address ?? null;
      });
    } catch (err) {
      rethrowConflict(err);
    }
  }
}

/**
 * SQL for the maker organization a wallet acts for when nothing recorded it (bids made before bids
 * carried their organization): the organization that issued its maker API key (a bot wallet),
 * else the one it is a member of; null for neither. The key comes first: a key's organization
 * is the one that issued it, and no other organization can change that, while a membership is
 * something another organization's admin could once add. `address` is SQL (a parameter or a
 * column), composed into another domain's statement (shared/dutch's fades).
 */
export const makerOrganizationOf = (address: string) => `COALESCE(
  (SELECT organization_id FROM api_keys WHERE kind = 'maker' AND lower(address) = lower(${address}) ORDER BY revoked_at IS NULL DESC, created_at DESC LIMIT 1),
  (SELECT organization_id FROM organization_members WHERE kind = 'maker' AND lower(address) = lower(${address}) LIMIT 1))`;

/**
 * Whether `address` is a wallet the maker organization registered: one of its members, or the
 * bot wallet of one of its active maker keys.
 */
export async function isMakerOrganizationWallet(db: Queryable, organizationId: string, address: string): Promise<boolean> {
  const rows: unknown[] = await db.query(
    `SELECT 1 FROM organization_members WHERE organization_id = $1 AND kind = 'maker' AND lower(address) = lower($2)
     UNION ALL
     SELECT 1 FROM api_keys WHERE organization_id = $1 AND kind = 'maker' AND revoked_at IS NULL AND lower(address) = lower($2)
     LIMIT 1`,
    [organizationId, address],
  );
  return rows.length > 0;
}
