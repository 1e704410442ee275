import { CredentialCache } from '../../../socket/credential-cache';
import type { BearerResolver } from '../../../shared/events';
import { SocketMetrics } from '../../../socket/socket-metrics';
import type { Principal } from '../../../shared/identity';
import { Metrics } from '../../../shared/platform/metrics';

const makerKey: Principal = { kind: 'maker_key', address: '0x00000000000000000000000000000000000000aa', keyId: 'k1', organizationId: 'o1', verified: true };

/** A resolver whose answers the test releases by hand, to line lookups up with revocations. */
class HeldResolver implements BearerResolver {
  calls = 0;
  private pending: ((p: Principal | null) => void)[] = [];
  resolveBearer(): Promise<Principal | null> {
    this.calls++;
    return new Promise((resolve) => this.pending.push(resolve));
  }
  async hasMakerRights(): Promise<boolean> {
    this.calls++;
    return true;
  }
  answer(p: Principal | null): void {
    for (const r of this.pending.splice(0)) r(p);
  }
}

describe('CredentialCache', () => {
  const make = (inner: BearerResolver, ttlMs = 60_000, maxEntries = 100) =>
    new CredentialCache(inner, { ttlMs, maxEntries, metrics: new SocketMetrics(new Metrics(false)) });

  it('shares one lookup between concurrent joins and reuses it within the window', async () => {
    const inner = new HeldResolver();
    const cache = make(inner);
    const both = Promise.all([cache.resolveBearer('mk_secret'), cache.resolveBearer('mk_secret')]);
    inner.answer(makerKey);
    expect(await both).toEqual([makerKey, makerKey]);
    expect(await cache.resolveBearer('mk_secret')).toEqual(makerKey);
    expect(inner.calls).toBe(1);
  });

  it('lets a revocation win over a lookup that was already running when it arrived', async () => {
    const inner = new HeldResolver();
    const cache = make(inner);
    const racing = cache.resolveBearer('mk_secret');
    cache.forgetKeys(['k1']);
    inner.answer(makerKey);
    expect(await racing).toBeNull();
    expect(await cache.resolveBearer('mk_secret')).toBeNull();
  });

  it('looks up every time when the cache is off, and drops the oldest entry when full', async () => {
    const inner = new HeldResolver();
    const off = make(inner, 0);
    const two = Promise.all([off.resolveBearer('a'), off.resolveBearer('a')]);
    inner.answer(null);
    await two;
    expect(inner.calls).toBe(2);

    const small = make(inner, 60_000, 1);
    const first = small.resolveBearer('a');
    inner.answer(null);
    await first;
    const second = small.resolveBearer('b');
    inner.answer(null);
    await second;
    const again = small.resolveBearer('a');
    inner.answer(null);
    await again;
    expect(inner.calls).toBe(5);
  });
});
