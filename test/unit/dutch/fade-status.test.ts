import { fadeStatusOf } from '../../../shared/dutch';

const policy = { limit: 3, windowSeconds: 100, cooldownSeconds: 50 };
const at = (s: number) => s * 1000;
const iso = (s: number) => new Date(at(s)).toISOString();

describe('the Dutch fade rule', () => {
  it('blocks from the fade that is the limit-th within the window until the cooldown after it', () => {
    const times = [at(1000), at(1050), at(1090)];
    expect(fadeStatusOf(times, policy, at(1095))).toEqual({ count: 3, window_seconds: 100, limit: 3, blocked_until: iso(1140) });
    // Blocked until the cooldown has passed, even once the oldest fade left the window.
    expect(fadeStatusOf(times, policy, at(1120))).toEqual({ count: 2, window_seconds: 100, limit: 3, blocked_until: iso(1140) });
    expect(fadeStatusOf(times, policy, at(1140))).toMatchObject({ blocked_until: null });
  });

  it('fades spread wider than the window never block; below the limit nothing blocks', () => {
    expect(fadeStatusOf([at(1000), at(1060), at(1120)], policy, at(1121))).toEqual({ count: 2, window_seconds: 100, limit: 3, blocked_until: null });
    expect(fadeStatusOf([at(1000), at(1001)], policy, at(1002))).toMatchObject({ count: 2, blocked_until: null });
    expect(fadeStatusOf([], policy, at(1002))).toEqual({ count: 0, window_seconds: 100, limit: 3, blocked_until: null });
  });

  it('the latest trip decides; a fade decided by a chain clock ahead of ours counts at once', () => {
    const times = [at(1000), at(1010), at(1020), at(1030)];
    expect(fadeStatusOf(times, policy, at(1025))).toEqual({ count: 4, window_seconds: 100, limit: 3, blocked_until: iso(1080) });
    expect(fadeStatusOf([at(1000)], { limit: 1, windowSeconds: 100, cooldownSeconds: 10 }, at(999))).toEqual({
      count: 1,
      window_seconds: 100,
      limit: 1,
      blocked_until: iso(1010),
    });
  });
});
