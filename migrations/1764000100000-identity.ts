import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Maker and taker organizations, their members and their API keys. */
export class Identity1764000100000 implements MigrationInterface {
  name = 'Identity1764000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE organizations (
        id         uuid PRIMARY KEY,
        kind       text NOT NULL CHECK (kind IN ('maker','taker')),
        name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (id, kind)
      )`);
    // `kind` is repeated on members so one wallet can be in at most one organization of each kind.
    await q.query(`
      CREATE TABLE organization_members (
        organization_id uuid NOT NULL,
        kind            text NOT NULL,
        address         text NOT NULL CHECK (address ~ '^0x[0-9a-fA-F]{40}$'),
        role            text NOT NULL CHECK (role IN ('admin','owner','manager','member')),
        created_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, address),
        FOREIGN KEY (organization_id, kind) REFERENCES organizations (id, kind) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX organization_members_one_per_kind ON organization_members (kind, address)`);
    // At most one admin per organization; owners and managers may be many.
    await q.query(`CREATE UNIQUE INDEX organization_members_one_admin ON organization_members (organization_id) WHERE role = 'admin'`);
    await q.query(`
      CREATE TABLE api_keys (
        id              uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        kind            text NOT NULL,
        name            text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
        address         text CHECK (address ~ '^0x[0-9a-fA-F]{40}$'),
        secret_hash     text NOT NULL UNIQUE CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
        created_by      text NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        last_used_at    timestamptz,
        revoked_at      timestamptz,
        FOREIGN KEY (organization_id, kind) REFERENCES organizations (id, kind) ON DELETE CASCADE,
        CHECK ((kind = 'maker') = (address IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX api_keys_active_by_org ON api_keys (organization_id, kind, created_at) WHERE revoked_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE organization_members`);
    await q.query(`DROP TABLE organizations`);
  }
}
