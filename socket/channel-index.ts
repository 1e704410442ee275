import type { Channel } from './socket-channel';

/**
 * Joined channels whose credential can end: by time (SIWE, delegate, stream token) or by
 * revocation (API keys). Only those are indexed, so the sweep and a revocation touch only
 * the channels they can concern.
 */
export class ChannelIndex {
  private readonly expiring = new Set<Channel>();
  private readonly byKey = new Map<string, Set<Channel>>();

  add(ch: Channel): void {
    if (ch.expiresAt > 0) this.expiring.add(ch);
    if (ch.keyId) {
      let set = this.byKey.get(ch.keyId);
      if (!set) this.byKey.set(ch.keyId, (set = new Set()));
      set.add(ch);
    }
  }

  remove(ch: Channel): void {
    this.expiring.delete(ch);
    if (!ch.keyId) return;
    const set = this.byKey.get(ch.keyId);
    if (set?.delete(ch) && set.size === 0) this.byKey.delete(ch.keyId);
  }

  expiredAt(now: number): Channel[] {
    const out: Channel[] = [];
    for (const ch of this.expiring) if (ch.expiresAt <= now) out.push(ch);
    return out;
  }

  /** The API keys behind joined channels: what the periodic re-check asks the database about. */
  keyIds(): string[] {
    return [...this.byKey.keys()];
  }

  withKey(keyId: string): Channel[] {
    return [...(this.byKey.get(keyId) ?? [])];
  }
}
