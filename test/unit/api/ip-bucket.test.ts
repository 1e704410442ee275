import { ipBucket } from '../../../api/auth/rate-limit';

describe('ipBucket: the rate-limit bucket of a client address', () => {
  it('an IPv4 address is its own bucket, also when it arrives IPv4-mapped', () => {
    expect(ipBucket('203.0.113.5')).toBe('ip:203.0.113.5');
    expect(ipBucket('::ffff:203.0.113.5')).toBe('ip:203.0.113.5');
    expect(ipBucket('::FFFF:203.0.113.5')).toBe('ip:203.0.113.5');
  });

  it('IPv6 addresses of one /64 share a bucket, however they are written', () => {
    const bucket = ipBucket('2001:db8:1:2::1');
    expect(bucket).toBe('ip6:2001:db8:1:2::/64');
    for (const same of ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0DB8:0001:0002:0000:0000:0000:0077', '2001:db8:1:2::1%eth0', '2001:db8:1:2::10.0.0.1']) {
      expect(ipBucket(same)).toBe(bucket);
    }
    expect(ipBucket('2001:db8:1:3::1')).not.toBe(bucket);
  });

  it('expands :: wherever it stands', () => {
    expect(ipBucket('::1')).toBe('ip6:0:0:0:0::/64');
    expect(ipBucket('::')).toBe('ip6:0:0:0:0::/64');
    expect(ipBucket('fe80::')).toBe('ip6:fe80:0:0:0::/64');
    expect(ipBucket('2001:db8::')).toBe('ip6:2001:db8:0:0::/64');
    expect(ipBucket('1:2:3:4:5::8')).toBe('ip6:1:2:3:4::/64');
    expect(ipBucket('64:ff9b::192.0.2.33')).toBe('ip6:64:ff9b:0:0::/64');
  });

  it('an unknown address gets a bucket of its own kind rather than none', () => {
    expect(ipBucket(undefined)).toBe('ip:unknown');
    expect(ipBucket('')).toBe('ip:unknown');
  });
});
