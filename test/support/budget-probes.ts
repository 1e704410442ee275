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
 * connection feeding `seen` saw from now until a sentinel set after `run` arrives.
 */
export async function rateLimitCommandsDuring(
  redis: TestEnv['redis'],
  seen: readonly MonitoredCommand[],
  prefix: string,
  run: () => Promise<void>,
): Promise<string[][]> {
  const from = seen.length;
  await run();
  const sentinel = `${prefix}sentinel:${randomBytes(4).toString('hex')}`;
  await redis.set(sentinel, '1', 'EX', 60);
  await eventually(
    async () => seen.slice(from).some((c) => c.args[1] === sentinel),
    (x) => x,
  );
  return seen
    .slice(from)
    .filter((c) => c.source !== 'lua' && c.args.some((a) => a.startsWith(`${prefix}rl:`)))
    .map((c) => c.args);
}
