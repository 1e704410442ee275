import { createHash } from 'node:crypto';
import type { BearerResolver } from '../shared/events';
import type { Principal } from '../shared/identity';
import type { SocketMetrics } from './socket-metrics';

interface Entry<T> {
  value: Promise<T>;
  until: number;
  /** The API key behind a resolved principal, so its revocation can find the entry. */
  keyId: string | null;
}

/**
 * Join-time credential lookups (an API key's row, a delegate's taker key, a wallet's maker
 * membership), reused for a few seconds: a bot that joins its feeds at connect, or a storm of
 * reconnects, then costs one database read per credential rather than one per join.
 *
 * Revocation wins over the cache: a revoked key id is purged and remembered for one cache
 * lifetime, so a lookup that was already running when the revocation arrived cannot put the key
 * back. Entries are keyed by the credential's sha-256, never the secret itself. Lookups are
 * cached while they run, so concurrent joins with one credential share one read; a failed
 * lookup is not cached.
 */
export class CredentialCache implements BearerResolver {
  private readonly entries = new Map<string, Entry<unknown>>();
  private readonly revoked = new Map<string, number>();

  constructor(
    private readonly inner: BearerResolver,
    private readonly opts: { ttlMs: number; maxEntries: number; metrics: SocketMetrics },
  ) {}

  async resolveBearer(raw: string): Promise<Principal | null> {
    const key = `b:${createHash('sha256').update(raw).digest('hex')}`;
    const p = await this.cached(
      key,
      'bearer',
      () => this.inner.resolveBearer(raw),
      (v) => keyIdOf(v),
    );
    if (!p) return null;
    // An unverified maker key is not kept: its wallet's verification must count at its next join.
    if (p.kind === 'maker_key' && !p.verified) this.entries.delete(key);
    const id = keyIdOf(p);
    if (id !== null && this.isRevoked(id)) return null;
    if ((p.kind === 'siwe' || p.kind === 'delegate') && p.expiresAt <= Date.now()) return null;
    return p;
  }

  hasMakerRights(p: Principal): Promise<boolean> {
    // only a wallet's membership is a lookup; a maker key's rights come with the key
    if (p.kind !== 'siwe') return this.inner.hasMakerRights(p);
    return this.cached(
      `r:${p.address}`,
      'maker_rights',
      () => this.inner.hasMakerRights(p),
      () => null,
    );
  }

  /** Forgets what these keys resolved to; lookups for them answer null for one cache lifetime. */
  forgetKeys(keyIds: Iterable<string>): void {
    if (this.opts.ttlMs === 0) return;
    const until = Date.now() + this.opts.ttlMs;
    const ids = new Set(keyIds);
    if (ids.size === 0) return;
    for (const id of ids) this.revoked.set(id, until);
    for (const [k, e] of this.entries) if (e.keyId !== null && ids.has(e.keyId)) this.entries.delete(k);
  }

  private isRevoked(keyId: string): boolean {
    const until = this.revoked.get(keyId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.revoked.delete(keyId);
    return false;
  }

  private cached<T>(key: string, kind: string, load: () => Promise<T>, keyOf: (v: T) => string | null): Promise<T> {
    const { ttlMs, maxEntries, metrics } = this.opts;
    const now = Date.now();
    const hit = this.entries.get(key) as Entry<T> | undefined;
    if (hit && hit.until > now) {
      metrics.credentialLookups.inc({ kind, result: 'hit' });
      return hit.value;
    }
    metrics.credentialLookups.inc({ kind, result: 'miss' });
    if (ttlMs === 0) return load();
    if (hit) this.entries.delete(key);
    // Map keeps insertion order: the first entry is the oldest
    if (this.entries.size >= maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const entry: Entry<T> = { value: load(), until: now + ttlMs, keyId: null };
    this.entries.set(key, entry);
    entry.value.then(
      (v) => {
        entry.keyId = keyOf(v);
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value;
  }
}

function keyIdOf(p: Principal | null): string | null {
  if (!p) return null;
  if (p.kind === 'maker_key' || p.kind === 'taker_key') return p.keyId;
  return p.kind === 'delegate' ? p.keyId : null;
}
