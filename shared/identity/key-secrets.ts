import { randomBytes, randomUUID } from 'node:crypto';
import type { OrgKind } from './identity.types';

/**
 * API key secrets: `mk_` (maker) or `tk_` (taker), the key id as 32 hex digits, `_`, then 256
 * random bits in base64url. The prefix tells a bearer's kind without a lookup; the embedded id
 * lets the server fetch one row and compare hashes in constant time instead of searching by hash.
 */
export const KEY_PREFIX: Record<OrgKind, 'mk_' | 'tk_'> = { maker: 'mk_', taker: 'tk_' };

const SECRET_SHAPE = /^(mk|tk)_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;

export interface ParsedSecret {
  kind: OrgKind;
  keyId: string;
}

/** A fresh key id and its secret. */
export function newKeySecret(kind: OrgKind): { keyId: string; secret: string } {
  const keyId = randomUUID();
  const secret = `${KEY_PREFIX[kind]}${keyId.replace(/-/g, '')}_${randomBytes(32).toString('base64url')}`;
  return { keyId, secret };
}

/** True when a bearer looks like an API key secret (of either kind) rather than a JWT. */
export function looksLikeKeySecret(raw: string): boolean {
  return raw.startsWith('mk_') || raw.startsWith('tk_');
}

/** The kind and key id a well-formed secret carries; null for anything else. */
export function parseKeySecret(raw: string): ParsedSecret | null {
  const m = SECRET_SHAPE.exec(raw);
  if (!m) return null;
  const hex = m[2];
  const keyId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { kind: m[1] === 'mk' ? 'maker' : 'taker', keyId };
}
