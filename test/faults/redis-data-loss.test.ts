import { spawn } from 'node:child_process';
import path from 'node:path';
import IORedis from 'ioredis';
import { DEVELOPMENT_SERVICE_SIGNER_KEY } from '../../shared/chain/service-signer';
import { noteWarningLine } from '../support/process-warnings';
import { serviceCommand } from '../support/spawn-service';
import { createTestEnv } from '../support/test-env';
import { sharedEnv, startStack, type Stack } from './fault-stack';
import { measureLoss } from './loss-invariant';
import type { QuoteLoad } from './quote-load';
import { startTestRedis } from './redis-server';

/**
 * Redis loses its data under the fault suite's quote load, and the service loses and stalls
 * nothing (docs/FAULTS.md, "Redis data loss"): the invariant of ./loss-invariant.ts, per quote.
 *
 * The stack's Redis runs without persistence (no AOF, no RDB), so a restart comes back empty;
 * the sweepers keep their production interval (5 s), so only the loss detection can meet the bound.
 * test/faults/redis-cluster-loss.test.ts does the same on a Redis Cluster: one master flushed,
 * and masters killed with writes their replicas never got.
 */
const ROOT = path.resolve(__dirname, '../..');

const summaries: string[] = [];
const measure = async (stack: Stack, fault: string, lose: (load: QuoteLoad) => Promise<number>, saidAs?: RegExp): Promise<void> => {
  summaries.push(await measureLoss(stack, fault, lose, saidAs));
};

afterAll(() => {
  // One block at the end, as the fault suite prints its lines (docs/FAULTS.md records them).
  if (summaries.length > 0) process.stdout.write(`\n${summaries.join('\n')}\n`);
});

describe('Redis loses its data under quote load', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ redis: { persistence: false } });
  }, 150_000);

  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  it('FLUSHALL: every quote is announced and expired within the bound, and the workers say what they rebuilt', async () => {
    const admin = new IORedis(stack.redis.url);
    try {
      await measure(stack, 'FLUSHALL', async (load) => {
        await load.waitAnswered(30);
        await admin.flushall();
        return Date.now();
      });
    } finally {
      admin.disconnect();
    }
  }, 120_000);

  it('restarted with no AOF and no RDB: the same', async () => {
    await measure(stack, 'restarted empty', async (load) => {
      await load.waitAnswered(30);
      await stack.redis.stop('SIGKILL');
      await load.waitAnswered(50);
      await stack.redis.start();
      return Date.now();
    });
  }, 120_000);
});

describe('an evicting Redis accepted with REDIS_ALLOW_EVICTION=true', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      redis: { persistence: false, args: ['--maxmemory', '48mb', '--maxmemory-policy', 'allkeys-lru'] },
      env: { REDIS_ALLOW_EVICTION: 'true' },
    });
  }, 150_000);

  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  it('keys evicted under load: the service says so (keys_evicted) and the invariant still holds', async () => {
    const admin = new IORedis(stack.redis.url);
    try {
      await measure(
        stack,
        'keys evicted',
        async (load) => {
          await load.waitAnswered(30);
          // Memory pressure from outside the service: 1 MB values until Redis has evicted something.
          const evicted = async () => Number(/evicted_keys:(\d+)/.exec(await admin.info('stats'))?.[1] ?? 0);
          const junk: string[] = [];
          for (let i = 0; i < 200 && (await evicted()) === 0; i++) {
            junk.push(`junk:${i}`);
            await admin.set(`junk:${i}`, 'x'.repeat(1024 * 1024));
          }
          expect(await evicted()).toBeGreaterThan(0);
          await admin.del(...junk);
          return Date.now();
        },
        /keys_evicted/,
      );
    } finally {
      admin.disconnect();
    }
  }, 120_000);
});

describe('an evicting Redis', () => {
  it('is refused at start: exit 78 and one JSON line naming the policy and the fix', async () => {
    const redis = await startTestRedis({ persistence: false, args: ['--maxmemory', '32mb', '--maxmemory-policy', 'allkeys-lru'] });
    const env = await createTestEnv({ REDIS_URL: redis.url });
    try {
      const base = { ...sharedEnv(env, redis, 'x'.repeat(64)), SERVICE_SIGNER_KEY: DEVELOPMENT_SERVICE_SIGNER_KEY };
      // Refused without the override, accepted with it: two processes on the same Redis, started together.
      const [refused, allowed] = await Promise.all([
        runToExit({ ...base, ROLES: 'workers', DATABASE_URL: env.config.DATABASE_URL }),
        runToExit({ ...base, ROLES: 'workers', DATABASE_URL: env.config.DATABASE_URL, REDIS_ALLOW_EVICTION: 'true' }, 'started'),
      ]);
      expect(refused.code).toBe(78);
      const fatal = refused.lines.filter((l) => l.level === 'fatal' || l.level === 60);
      expect(fatal).toHaveLength(1);
      expect(fatal[0]).toMatchObject({ maxmemory_policy: 'allkeys-lru', fix: 'CONFIG SET maxmemory-policy noeviction', override: 'REDIS_ALLOW_EVICTION=true' });
      expect(String(fatal[0].msg)).toMatch(/^refusing to start: Redis .* has maxmemory-policy allkeys-lru/);

      // With the override the same Redis is accepted, with a warning that says what it costs.
      expect(allowed.code).not.toBe(78);
      expect(allowed.lines.some((l) => String(l.msg).startsWith('Redis evicts keys (maxmemory-policy allkeys-lru)'))).toBe(true);
      expect(allowed.lines.some((l) => l.msg === 'started')).toBe(true);
    } finally {
      await env.close();
      await redis.close();
    }
  }, 120_000);
});

/** Starts one service process and waits for it to exit, or (`until`) for that log line, then stops it. */
async function runToExit(env: Record<string, string>, until?: string): Promise<{ code: number | null; lines: Record<string, unknown>[] }> {
  const [command, args] = serviceCommand();
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let buf = '';
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        lines.push(parsed);
        noteWarningLine(parsed, `spawned ${env.ROLES ?? 'all roles'} process ${child.pid}`);
        if (until !== undefined && parsed.msg === until) child.kill('SIGTERM');
      } catch {
        // not a log line
      }
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await closed;
  clearTimeout(timer);
  return { code, lines };
}
