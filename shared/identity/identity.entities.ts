import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A maker or taker organization, created by an operator. */
@Entity({ name: 'organizations' })
export class OrganizationEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'text' })
  kind: 'maker' | 'taker';

  @Column({ type: 'text' })
  name: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;
}

/** A wallet's role in an organization; a wallet belongs to at most one organization of each kind. */
@Entity({ name: 'organization_members' })
export class OrganizationMemberEntity {
  @PrimaryColumn({ type: 'uuid' })
  organization_id: string;

  /** Checksummed wallet address. */
  @PrimaryColumn({ type: 'text' })
  address: string;

  /** Copy of the organization's kind, so the database can enforce one organization per kind per wallet. */
  @Column({ type: 'text' })
  kind: 'maker' | 'taker';

  @Column({ type: 'text' })
  role: 'admin' | 'owner' | 'manager' | 'member';

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;
}

/**
 * A maker key (a bot wallet's credential) or a taker key (an integrator backend's). Only the
 * sha-256 of the secret is stored; a removed key keeps its row with `revoked_at` set.
 */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid' })
  organization_id: string;

  @Column({ type: 'text' })
  kind: 'maker' | 'taker';

  @Column({ type: 'text' })
  name: string;

  /** The bot wallet a maker key acts as; null for taker keys. */
  @Column({ type: 'text', nullable: true })
  address: string | null;

  /** Lower-case hex sha-256 of the whole secret. */
  @Column({ type: 'text' })
  secret_hash: string;

  /** Wallet that issued the key. */
  @Column({ type: 'text' })
  created_by: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @Column({ type: 'timestamptz', nullable: true })
  last_used_at: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revoked_at: Date | null;

  /**
   * When a maker key's bot wallet proved it consents (its `address_signature` at creation, its
   * signature on POST /api/maker/keys/:id/verify, or its own SIWE sign-in); null while
   * unverified. Taker keys: always null (no wallet).
   */
  @Column({ type: 'timestamptz', nullable: true })
  verified_at: Date | null;
}
