import { ReplayGate } from '../../../socket/replay-gate';

describe('ReplayGate', () => {
  it('runs at most `limit` tasks at once, the rest in arrival order, and survives failures', async () => {
    const gate = new ReplayGate(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      order.push(i);
      if (i === 1) throw new Error('boom');
      return i;
    };
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map((i) => gate.run(task(i))));
    expect(peak).toBe(2);
    expect(results[1].status).toBe('rejected');
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value)).toEqual([0, 2, 3, 4, 5]);
    expect(order.slice(2)).toEqual([2, 3, 4, 5]);
    expect(gate.queued).toBe(0);
    expect(await gate.run(async () => 'after')).toBe('after');
  });
});
