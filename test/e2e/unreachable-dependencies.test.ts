import { NetworksService } from '../../shared/networks';
import { freePort } from '../support/chain';
import { networkFile } from '../support/fixtures';
import { runUntilExit, type FinishedProcess } from '../support/spawn-service';
import { createTestEnv, type TestEnv } from '../support/test-env';

/**
 * Issue 39: `REDIS_URL=redis://127.0.0.1:6390 npm start` printed raw `[ioredis] Unhandled error
 * event` lines for as long as it ran and never listened nor exited. Every role, and `npm start`
 * (all four with its devchain), now checks what it needs before it opens anything, and gives up
 * after START_TIMEOUT_SECONDS naming the dependency. Each run here points one dependency at a port
 * where nothing listens, with a password (or an RPC key in the path) that must never be printed,
 * and reads every line the process wrote on stdout and stderr.
 */
const SECRET = 'n0t-for-the-logs';
const REMOTE_CHAIN = 421614;

type Role = 'api' | 'socket' | 'workers' | 'indexer' | 'npm start';
type Dependency = 'redis' | 'redis cluster' | 'postgres' | 'rpc';

/**
 * Each role against an unreachable Redis and Postgres; the indexer (and npm start, which runs it)
 * against an unreachable RPC too; one role against a Redis Cluster whose seed nodes do not answer.
 */
const CASES: [Role, Dependency][] = [
  ...(['api', 'socket', 'workers', 'indexer', 'npm start'] as const).flatMap((role) => [
    [role, 'redis'] as [Role, Dependency],
    [role, 'postgres'] as [Role, Dependency],
  ]),
  ['indexer', 'rpc'],
  ['npm start', 'rpc'],
  ['api', 'redis cluster'],
];

describe('a role whose dependency does not answer at start', () => {
  let env: TestEnv;
  /** Ports where nothing listens (each was free a moment ago). */
  let closed: { redis: number; cluster: number[]; postgres: number; rpc: number; devchain: number };

  beforeAll(async () => {
    env = await createTestEnv();
    closed = {
      redis: await freePort(),
      cluster: [await freePort(), await freePort()],
      postgres: await freePort(),
      rpc: await freePort(),
      devchain: await freePort(),
    };
    // A network whose only RPC URL is a closed port, with a provider key in its path. With it in the
    // registry `npm start` leaves the devchain alone, so its indexer has this network to check.
    await new NetworksService(env.db).upsertNetwork(
      networkFile(REMOTE_CHAIN, { name: 'Unreachable testnet', rpc_urls: [`http://127.0.0.1:${closed.rpc}/v2/${SECRET}`] }),
    );
  });
  afterAll(() => env?.close());

  function envFor(role: Role, dependency: Dependency): Record<string, string> {
    const base: Record<string, string> = {
      DATABASE_URL: env.config.DATABASE_URL,
      REDIS_URL: env.config.REDIS_URL,
      REDIS_PREFIX: env.config.REDIS_PREFIX,
      START_TIMEOUT_SECONDS: '1',
      ...(role === 'npm start'
        ? // What `npm start` is: every role and the devchain; a key of its own, since the registry
          // holds a network that is not this machine's devchain (shared/chain/service-signer.ts).
          { DEVCHAIN: 'auto', DEVCHAIN_PORT: String(closed.devchain), SERVICE_SIGNER_KEY: `0x${'5'.repeat(64)}` }
        : { ROLES: role, DEVCHAIN: 'off' }),
    };
    if (dependency === 'redis') base.REDIS_URL = `redis://:${SECRET}@127.0.0.1:${closed.redis}`;
    if (dependency === 'redis cluster') base.REDIS_URL = `redis+cluster://:${SECRET}@${closed.cluster.map((p) => `127.0.0.1:${p}`).join(',')}`;
    if (dependency === 'postgres') base.DATABASE_URL = `postgres://postgres:${SECRET}@127.0.0.1:${closed.postgres}/options_rfq`;
    return base;
  }

  /** What the dependency is called in the lines, and the URL they show for it. */
  function expected(dependency: Dependency): { name: string; url: string } {
    if (dependency === 'redis') return { name: 'redis', url: `redis://:***@127.0.0.1:${closed.redis}` };
    if (dependency === 'redis cluster') return { name: 'redis cluster', url: `redis+cluster://:***@${closed.cluster.map((p) => `127.0.0.1:${p}`).join(',')}` };
    if (dependency === 'postgres') return { name: 'postgres', url: `postgres://postgres:***@127.0.0.1:${closed.postgres}/options_rfq` };
    return { name: `rpc ${REMOTE_CHAIN}`, url: `http://127.0.0.1:${closed.rpc}` };
  }

  /** Every line printed, anywhere, is one JSON object. */
  function nonJson(run: FinishedProcess): string[] {
    return [...run.stdout, ...run.stderr].filter((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        return parsed === null || typeof parsed !== 'object';
      } catch {
        return true;
      }
    });
  }

  it.each(CASES)(
    '%s with an unreachable %s exits non-zero naming it, and prints nothing but JSON',
    async (role, dependency) => {
      const run = await runUntilExit(envFor(role, dependency));
      const { name, url } = expected(dependency);
      const said = `exit ${run.code}; stdout:\n${run.stdout.join('\n')}\nstderr:\n${run.stderr.join('\n')}`;

      expect({ exited: run.code !== null, code: run.code, said }).toEqual({ exited: true, code: 69, said });
      expect(nonJson(run)).toEqual([]);
      expect(run.stderr).toEqual([]);
      // One line per attempt, each naming the dependency and its URL without the secret...
      const attempts = run.lines.filter((l) => l.dependency === name && l.level !== 'fatal');
      expect(attempts.length).toBeGreaterThan(0);
      for (const a of attempts) expect(a).toMatchObject({ url, attempt: expect.any(Number), err: expect.any(String) });
      // ...and the fatal line that ends the start names it too.
      const fatal = run.lines.filter((l) => l.level === 'fatal');
      expect(fatal).toEqual([expect.objectContaining({ dependency: name, url, msg: expect.stringContaining(`refusing to start: ${name} at ${url}`) })]);
      expect([...run.stdout, ...run.stderr].filter((l) => l.includes(SECRET))).toEqual([]);
    },
    240_000,
  );
});
