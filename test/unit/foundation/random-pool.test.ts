import { pooledRandomBytes } from '../../../shared/platform/secrets';

describe('pooledRandomBytes', () => {
  it('hands out fresh bytes of the asked length, across many refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const b = pooledRandomBytes(32); // 64,000 bytes: the 8 KB pool refills several times
      expect(b).toHaveLength(32);
      seen.add(b.toString('hex'));
    }
    expect(seen.size).toBe(2000);
  });

  it('copies out of the pool: a caller changing its bytes changes nobody else', () => {
    const a = pooledRandomBytes(16);
    const before = pooledRandomBytes(16).toString('hex');
    a.fill(0);
    expect(before).not.toBe('0'.repeat(32));
    expect(pooledRandomBytes(16).toString('hex')).not.toBe('0'.repeat(32));
  });

  it('looks random: every byte value turns up, none far more than its share', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 1024; i++) for (const v of pooledRandomBytes(64)) counts[v]++;
    // 65,536 bytes: 256 expected per value; a fair source stays well inside 150..400
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(400);
  });

  it('refuses a length it does not serve', () => {
    for (const n of [0, -1, 1.5, 257]) expect(() => pooledRandomBytes(n)).toThrow(RangeError);
  });
});
