import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { OrganizationEntity, OrganizationMemberEntity } from './identity.entities';
import { ConflictError, ForbiddenError, NotFoundError } from '../platform/errors';
import { addressSchema, parseOrThrow } from '../platform/validation';
import { nameSchema } from '../../wire/src/identity.wire';
import { isManagingRole, ORG_KINDS, ROLES, type Membership, type OrgKind, type Role } from './identity.types';
import { MemberConflictError, OrganizationRepository, type MemberConflict } from './organization.repository';

export interface OrganizationView {
  id: string;
  kind: OrgKind;
  name: string;
  created_at: string;
  members: { address: string; role: Role; created_at: string }[];
}

const createSchema = z.strictObject({
  kind: z.enum(ORG_KINDS, { message: `must be one of ${ORG_KINDS.join(', ')}` }),
  name: nameSchema(128),
  owner: addressSchema,
});

const addMemberSchema = z.strictObject({
  organization_id: z.uuid('must be an organization id (uuid)'),
  address: addressSchema,
  role: z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` }),
});

function view(org: OrganizationEntity, members: OrganizationMemberEntity[]): OrganizationView {
  return {
    id: org.id,
    kind: org.kind,
    name: org.name,
    created_at: org.created_at.toISOString(),
    members: members.map((m) => ({ address: m.address, role: m.role, created_at: m.created_at.toISOString() })),
  };
}

function conflict(c: MemberConflict, address: string, kind: OrgKind): ConflictError {
  switch (c) {
    case 'one_per_kind':
      return new ConflictError(`${address} already belongs to a ${kind} organization`, 'already_in_organization');
    case 'already_member':
      return new ConflictError(`${address} is already a member of this organization`, 'already_member');
    case 'one_admin':
      return new ConflictError('the organization already has an admin; transfer admin instead', 'admin_exists');
  }
}

/** Organizations and roles: created by operators, read on every maker and taker request. */
export class OrganizationService {
  readonly repo: OrganizationRepository;

  constructor(ds: DataSource) {
    this.repo = new OrganizationRepository(ds);
  }

  /** Creates an organization whose first member, `owner`, holds the `owner` role. */
  async create(raw: { kind: unknown; name: unknown; owner: unknown }): Promise<OrganizationView> {
    const input = parseOrThrow(createSchema, raw);
    const id = randomUUID();
    try {
      await this.repo.create({ id, kind: input.kind, name: input.name }, { address: input.owner, role: 'owner' });
    } catch (err) {
      if (err instanceof MemberConflictError) throw conflict(err.conflict, input.owner, input.kind);
      throw err;
    }
    return this.get(id);
  }

  async addMember(raw: { organization_id: unknown; address: unknown; role: unknown }): Promise<OrganizationView> {
    const input = parseOrThrow(addMemberSchema, raw);
    const org = await this.repo.find(input.organization_id);
    if (!org) throw new NotFoundError(`no organization ${input.organization_id}`, 'organization_not_found');
    try {
      await this.repo.addMember(org, input.address, input.role);
    } catch (err) {
      if (err instanceof MemberConflictError) throw conflict(err.conflict, input.address, org.kind);
      throw err;
    }
    return this.get(org.id);
  }

  async get(id: string): Promise<OrganizationView> {
    const org = await this.repo.find(id);
    if (!org) throw new NotFoundError(`no organization ${id}`, 'organization_not_found');
    return view(org, await this.repo.members(id));
  }

  async list(): Promise<{ organizations: OrganizationView[] }> {
    return { organizations: (await this.repo.list()).map((o) => view(o.org, o.members)) };
  }

  membership(address: `0x${string}`, kind: OrgKind): Promise<Membership | null> {
    return this.repo.membership(address, kind);
  }

  /** The wallet's membership when it may manage its organization of `kind`; a 403 otherwise. */
  async requireManager(address: `0x${string}`, kind: OrgKind): Promise<Membership> {
    const m = await this.repo.membership(address, kind);
    if (!m) throw new ForbiddenError(`${address} is not a member of a ${kind} organization`, `not_${kind}_member`);
    if (!isManagingRole(m.role)) {
      throw new ForbiddenError(`role ${m.role} may not manage the ${kind} organization; admin, owner or manager required`, 'role_forbidden');
    }
    return m;
  }

  /** Makes `newAdmin` the organization's admin; the previous admin stays as a member. */
  async transferAdmin(org: Membership, newAdmin: `0x${string}`): Promise<{ id: string; name: string; admin: string; previous_admin: string | null }> {
    const current = await this.repo.membership(newAdmin, org.kind);
    if (current && current.organizationId === org.organizationId && current.role === 'admin') {
      throw new ConflictError(`${newAdmin} is already the admin`, 'already_admin');
    }
    if (current && current.organizationId !== org.organizationId) throw conflict('one_per_kind', newAdmin, org.kind);
    let previous: string | null;
    try {
      previous = await this.repo.transferAdmin({ id: org.organizationId, kind: org.kind }, newAdmin);
    } catch (err) {
      if (err instanceof MemberConflictError) throw conflict(err.conflict, newAdmin, org.kind);
      throw err;
    }
    return { id: org.organizationId, name: org.organizationName, admin: newAdmin, previous_admin: previous };
  }
}
