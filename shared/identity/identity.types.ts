import { ROLES } from '../../wire/src/identity.wire';

/** Who a bearer credential speaks for. The socket tier and the API share this shape. */
export type Principal =
  | { kind: 'siwe'; address: `0x${string}`; expiresAt: number /* unix ms */ }
  | {
      kind: 'maker_key';
      address: `0x${string}` /* bot wallet */;
      keyId: string;
      organizationId: string;
      /** The bot wallet proved it consents to the key: only then may it bid, take exclusive fills and join rfq_maker. */
      verified: boolean;
    }
  | { kind: 'taker_key'; keyId: string; organizationId: string }
  | { kind: 'delegate'; address: `0x${string}`; keyId: string | null; organizationId: string; expiresAt: number };

export const ORG_KINDS = ['maker', 'taker'] as const;
export type OrgKind = (typeof ORG_KINDS)[number];

export { ROLES };
export type Role = (typeof ROLES)[number];

/** Roles that may manage keys, mint admin delegates and transfer admin. */
export const MANAGING_ROLES: readonly Role[] = ['admin', 'owner', 'manager'];

export function isManagingRole(role: Role): boolean {
  return MANAGING_ROLES.includes(role);
}

/** A wallet's place in an organization. */
export interface Membership {
  organizationId: string;
  organizationName: string;
  kind: OrgKind;
  address: `0x${string}`;
  role: Role;
}

/** A key as clients see it. `address` only for maker keys. */
export interface KeyView {
  id: string;
  name: string;
  address?: string;
  created_at: string;
  last_used_at: string | null;
  /** Maker keys only: whether the bot wallet proved it consents (POST /api/maker/keys/:id/verify). */
  verified?: boolean;
}

/** A maker key as clients see it: with its bot `address` and whether that wallet verified it. */
export type MakerKeyView = KeyView & { verified: boolean };

/** A key at the moment it is issued: the only time its secret is shown. */
export type IssuedKey = KeyView & { secret: string };
