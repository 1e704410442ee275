import { NetworksService } from '../../../shared/networks';
import { networkFile } from '../../support/fixtures';
import { spawnService, type RunningService } from '../../support/spawn-service';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { serviceEnv } from './service-env';

describe('bin/main.ts', () => {
  let env: TestEnv;
  let svc: RunningService | undefined;

  beforeAll(async () => {
    env = await createTestEnv();
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(async () => {
    await svc?.stop('SIGKILL');
    await env.close();
  });

  it('starts the roles, answers from Postgres, and drains on SIGTERM with exit 0', async () => {
    svc = await spawnService(serviceEnv(env));
    const res = await fetch(`${svc.url}/api/networks`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { networks: { chain_id: number }[] };
    expect(body.networks.map((n) => n.chain_id)).toEqual([31337]);
    expect((await fetch(`${svc.url}/readyz`)).status).toBe(200);

    const code = await svc.stop('SIGTERM');
    expect(code).toBe(0);
    const closed = svc.lines.filter((l) => l.msg === 'closed').map((l) => l.part);
    expect(closed).toEqual(expect.arrayContaining(['api http server', 'workers', 'redis', 'postgres pool']));
    expect(closed.indexOf('api http server')).toBeLessThan(closed.indexOf('postgres pool'));
  }, 90000);

  it('a SIGTERM during start-up (API listening, socket not yet attached) drains with exit 0, not a crash', async () => {
    // spawnService returns at the "api listening" line; the socket tier attaches after it, so the
    // signal lands while start-up is still registering parts with the lifecycle.
    const early = await spawnService(serviceEnv(env, { ROLES: 'api,socket,workers' }));
    const code = await early.stop('SIGTERM');
    expect(early.stderr()).not.toMatch(/fatal|shutdown has begun/);
    expect(code).toBe(0);
    const closed = early.lines.filter((l) => l.msg === 'closed' || l.msg === 'opened after shutdown began: closing it now').map((l) => l.part);
    expect(closed).toEqual(expect.arrayContaining(['api http server', 'postgres pool']));
  }, 90000);

  it('refuses to start with a bad environment, naming each key, exit 78', async () => {
    await expect(spawnService({ PORT: 'x', ROLES: 'nope' }, { timeoutMs: 30000 })).rejects.toThrow(
      /exited with 78[\s\S]*PORT[\s\S]*ROLES|exited with 78[\s\S]*ROLES[\s\S]*PORT/,
    );
  }, 60000);
});
