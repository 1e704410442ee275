import { randomBytes } from 'node:crypto';
import type { WriteBudgets } from '../../api/auth/write-budgets';
import { eventually } from './events';
import type { MonitoredCommand } from './redis-monitor';
import type { TestEnv } from './test-env';

/** A delegate as the budget tests make it: its taker key, its organization and its wallet. */
export interface BudgetDelegate {
  keyId: string;
  org: string;
  address: string;
}

/** The counters a delegate's request spends from, read back from Redis: its IP bucket's, the delegate's own and its taker key's. */
export async function budgetCounters(
  redis: TestEnv['redis'],
  budgets: WriteBudgets,
  ip: string,
  d: BudgetDelegate,
): Promise<{ ip: number; delegate: number; key: number }> {
  const read = async (k: string) => Number((await redis.get(k)) ?? 0);
  return {
    ip: await read(budgets.key('ip', ip)),
    delegate: await read(budgets.key('credential', `delegate:${d.org}:${d.address}`)),
    key: await read(budgets.key('credential', `taker_key:${d.keyId}`)),
  };
}

/**
 * The rate-limit commands (keys under `<prefix>rl:`, not those a Lua script sends) that a MONITOR
 * connection feeding `seen` saw between two sentinels: one set before `run` and one after. MONITOR
 * lines arrive late, so a command sent before `run` may be heard after it began: the window is
 * bounded by what Redis received, not by when this process heard it.
 */
export async function rateLimitCommandsDuring(
  redis: TestEnv['redis'],
  seen: readonly MonitoredCommand[],
  prefix: string,
  run: () => Promise<void>,
): Promise<string[][]> {
  const start = await heard(redis, seen, prefix, 0);
  await run();
  const end = await heard(redis, seen, prefix, start);
  return seen
    .slice(start + 1, end)
    .filter((c) => c.source !== 'lua' && c.args.some((a) => a.startsWith(`${prefix}rl:`)))
    .map((c) => c.args);
}

/** Sets a fresh sentinel key and answers its index in `seen` once MONITOR has reported it (searching from `from`). */
async function heard(redis: TestEnv['redis'], seen: readonly MonitoredCommand[], prefix: string, from: number): Promise<number> {
  const sentinel = `${prefix}sentinel:${randomBytes(4).toString('hex')}`;
  await redis.set(sentinel, '1', 'EX', 60);
  const at = () => seen.findIndex((c, i) => i >= from && c.args[1] === sentinel);
  await eventually(
    async () => at(),
    (i) => i >= 0,
  );
  return at();
}

/**
 * Runs `run` with this process's clock (`Date.now`) `seconds` ahead of the wall clock, then puts
 * it back: how a test ends a window the code remembers in memory without waiting it out (Redis
 * keeps its own clock, so its window has not ended).
 */
export async function withClockAhead<T>(seconds: number, run: () => Promise<T>): Promise<T> {
  const realNow = Date.now.bind(Date);
  const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + seconds * 1000);
  try {
    return await run();
  } finally {
    clock.mockRestore();
  }
}
