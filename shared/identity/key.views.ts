import type { ApiKeyEntity } from './identity.entities';
import type { KeyView, MakerKeyView } from './identity.types';

/** A key record as the API returns it: maker keys carry their bot `address`, taker keys do not. */
export function keyView(k: ApiKeyEntity): KeyView {
  return {
    id: k.id,
    name: k.name,
    ...(k.kind === 'maker' && k.address ? { address: k.address } : {}),
    created_at: new Date(k.created_at).toISOString(),
    last_used_at: k.last_used_at ? new Date(k.last_used_at).toISOString() : null,
    ...(k.kind === 'maker' ? { verified: k.verified_at !== null } : {}),
  };
}

/** A maker key's record: always says whether it is verified. */
export function makerKeyView(k: ApiKeyEntity): MakerKeyView {
  return { ...keyView(k), verified: k.verified_at !== null };
}

/** The record of a key that was just removed. */
export function removedKeyView<K extends KeyView = KeyView>(k: ApiKeyEntity): K & { removed_at: string } {
  return { ...(keyView(k) as K), removed_at: new Date(k.revoked_at ?? Date.now()).toISOString() };
}
