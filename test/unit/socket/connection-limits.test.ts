import type http from 'node:http';
import fc from 'fast-check';
import { addressBucket, clientAddress } from '../../../shared/platform/http/client-address';
import { ConnectionLimiter } from '../../../socket/connection-limiter';
import { takeJoin } from '../../../socket/join-bucket';
import { ReplayBudget } from '../../../socket/replay-budget';

const upgrade = (remote: string, xff?: string) =>
  ({ socket: { remoteAddress: remote }, headers: xff === undefined ? {} : { 'x-forwarded-for': xff } }) as unknown as http.IncomingMessage;

describe('client addresses', () => {
  it('ignores X-Forwarded-For unless proxies are trusted, then takes the entry that many hops back', () => {
    expect(clientAddress(upgrade('10.0.0.1', '203.0.113.9'), 0)).toBe('10.0.0.1');
    expect(clientAddress(upgrade('10.0.0.1', '203.0.113.9'), 1)).toBe('203.0.113.9');
    // a client cannot push its own forged entry past the trusted hop
    expect(clientAddress(upgrade('10.0.0.1', '198.51.100.66, 203.0.113.9'), 1)).toBe('203.0.113.9');
    expect(clientAddress(upgrade('10.0.0.1', '198.51.100.66, 203.0.113.9'), 2)).toBe('198.51.100.66');
    // fewer entries than hops: the farthest one known
    expect(clientAddress(upgrade('10.0.0.1', '203.0.113.9'), 3)).toBe('203.0.113.9');
    expect(clientAddress(upgrade('10.0.0.1'), 1)).toBe('10.0.0.1');
  });

  it('buckets IPv6 by /64, IPv4-mapped IPv6 as its IPv4 address', () => {
    expect(addressBucket('2001:db8:1:2::10')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002:ffff:0:0:1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
  });
});

describe('ConnectionLimiter', () => {
  it('caps per address and in total, and gives slots back', () => {
    const l = new ConnectionLimiter(3, 2);
    expect([l.acquire('a'), l.acquire('a'), l.acquire('a')]).toEqual([null, null, 'per_ip']);
    expect([l.acquire('b'), l.acquire('c')]).toEqual([null, 'replica_full']);
    l.release('a');
    expect(l.acquire('c')).toBeNull();
    l.release('never-held');
    expect(l.acquire('d')).toBe('replica_full');
  });
});

describe('join bucket (one number per connection)', () => {
  /** A connection's bucket as the connection keeps it: the number, and refusals in a row. */
  function bucket(burst: number, perMinute: number, now: number) {
    let full = now;
    let refusedInARow = 0;
    return {
      take(at: number): boolean {
        const next = takeJoin(full, at, { burst, perMinute });
        if (next === null) {
          refusedInARow++;
          return false;
        }
        full = next;
        refusedInARow = 0;
        return true;
      },
      get refusedInARow() {
        return refusedInARow;
      },
    };
  }

  it('lets a burst through, refills at the rate, and counts refusals in a row', () => {
    const b = bucket(2, 60, 0);
    expect([b.take(0), b.take(0), b.take(0), b.take(0)]).toEqual([true, true, false, false]);
    expect(b.refusedInARow).toBe(2);
    expect(b.take(999)).toBe(false);
    expect(b.take(1000)).toBe(true);
    expect(b.refusedInARow).toBe(0);
    // an idle connection refills up to the burst, not beyond
    expect([b.take(600_000), b.take(600_000), b.take(600_000)]).toEqual([true, true, false]);
  });

  it('lets through exactly what a token bucket would, at any rate and spacing', () => {
    fc.assert(
      // rates whose interval is whole milliseconds, so the reference's float refill is exact enough to compare
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(1, 7.5, 10, 12, 60, 120, 600, 1000, 6000),
        fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 60 }),
        (burst, perMinute, gaps) => {
          let tokens = burst;
          let at = 0;
          let full = 0;
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            tokens = Math.min(burst, tokens + ((now - at) * perMinute) / 60_000);
            at = now;
            // the reference bucket, with a tolerance for its floating-point refill
            const reference = tokens >= 1 - 1e-9;
            if (reference) tokens -= 1;
            const next = takeJoin(full, now, { burst, perMinute });
            expect(next !== null).toBe(reference);
            if (next !== null) full = next;
          }
        },
      ),
    );
  });
});

describe('ReplayBudget', () => {
  it('allows replays until the bytes are spent, then until the window turns over', () => {
    const r = new ReplayBudget(1000, 60_000, 0);
    expect(r.allows(0)).toBe(true);
    r.spend(1500, 10);
    expect(r.allows(20)).toBe(false);
    expect(r.secondsLeft(20)).toBe(60);
    expect(r.secondsLeft(59_500)).toBe(1);
    expect(r.allows(60_000)).toBe(true);
  });
});
