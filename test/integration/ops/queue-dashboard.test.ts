import type { Express } from 'express';
import supertest from 'supertest';
import { createApp } from '../../../api/app';
import { OPERATOR_CHALLENGE } from '../../../api/auth/operator-auth';
import { errorBodySchema } from '../../../api/http/error-cases';
import { QUEUE_DASHBOARD_CSP } from '../../../api/ops/queue-dashboard';
import type { Config } from '../../../shared/platform/config';
import { JOBS, QUEUE_NAMES } from '../../../workers/job-catalog';
import { buildApp } from '../../support/http';
import { startRedisCluster, type TestRedisCluster } from '../../support/redis-cluster';
import { createTestEnv, type TestEnv } from '../../support/test-env';

const TOKEN = 'ops-dashboard-token-for-tests-0123456789abcdef';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** bull-board's answer to `GET api/queues`, as far as these tests read it. */
interface BoardQueues {
  queues: { name: string; readOnlyMode: boolean; counts: Record<string, number> }[];
}

/**
 * The operator's queue dashboard (`/ops/queues`, bull-board): mounted only with
 * OPS_DASHBOARD_TOKEN, behind that token as a Basic password or a bearer, every queue of the
 * job catalog shown read-only, failed credentials limited per client IP. These paths are no part
 * of the API's contracts, so plain supertest asks them and the error bodies are checked here.
 */
describe('queue dashboard at /ops/queues', () => {
  let env: TestEnv;
  let prefixes = 0;

  /** An api replica with the dashboard; each has its own Redis prefix for the limiter, so tests do not share budgets. */
  function dashboardApp(overrides: Partial<Config> = {}): Express {
    const config = Object.freeze({
      ...env.config,
      OPS_DASHBOARD_TOKEN: TOKEN,
      TRUST_PROXY_HOPS: 1,
      REDIS_PREFIX: `${env.config.REDIS_PREFIX}ops${++prefixes}:`,
      ...overrides,
    });
    // The queues stay the environment's own (env.queue): the prefix above only separates the limiter's keys.
    return createApp({ ...env, config, queueNames: QUEUE_NAMES }).app;
  }

  function expectRefused(res: supertest.Response): void {
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(OPERATOR_CHALLENGE);
    expect(errorBodySchema.parse(res.body)).toEqual({
      error: 'operator credential required',
      code: 'operator_unauthorized',
      request_id: res.headers['x-request-id'],
    });
  }

  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('is not mounted without OPS_DASHBOARD_TOKEN: 404 route_not_found like any unknown path', async () => {
    expect(env.config.OPS_DASHBOARD_TOKEN).toBeUndefined();
    const app = buildApp(env).app;
    for (const path of ['/ops/queues', '/ops/queues/api/queues']) {
      const res = await supertest(app).get(path).set('Authorization', `Bearer ${TOKEN}`).expect(404);
      expect(res.body).toEqual({ error: `no route GET ${path}`, code: 'route_not_found', request_id: expect.any(String) });
    }
  });

  it('answers 401 with a Basic challenge to a request without a credential', async () => {
    const app = dashboardApp();
    expectRefused(await supertest(app).get('/ops/queues').set('X-Forwarded-For', '203.0.113.1'));
    expectRefused(await supertest(app).get('/ops/queues/api/queues').set('X-Forwarded-For', '203.0.113.1'));
  });

  it.each([
    ['a wrong Basic password', basic('ops', `${TOKEN}x`)],
    ['the token as the Basic user name', basic(TOKEN, 'nope')],
    ['a wrong bearer', `Bearer ${TOKEN.slice(0, -1)}`],
    ['a Basic credential that is not user:password', `Basic ${Buffer.from(TOKEN).toString('base64')}`],
    ['another scheme', `Token ${TOKEN}`],
  ])('answers %s with the same 401 as no credential', async (_what, authorization) => {
    expectRefused(await supertest(dashboardApp()).get('/ops/queues').set('X-Forwarded-For', '203.0.113.2').set('Authorization', authorization));
  });

  it('serves the page to the token as a Basic password under any user name, and as a bearer', async () => {
    const app = dashboardApp();
    for (const authorization of [basic('anyone', TOKEN), basic('', TOKEN), `Bearer ${TOKEN}`]) {
      const res = await supertest(app).get('/ops/queues').set('Authorization', authorization).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('options-rfq queues');
      // Its assets are found under the mount.
      expect(res.text).toContain('<base href="/ops/queues/" />');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toBe(QUEUE_DASHBOARD_CSP);
    }
  });

  it("lists every queue of the job catalog in bull-board's JSON, each read-only, with its counts", async () => {
    await env.queue.enqueue(JOBS['quotes.sweep'], {}, { delay: 3_600_000 });
    const res = await supertest(dashboardApp()).get('/ops/queues/api/queues').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    const board = res.body as BoardQueues;
    expect(QUEUE_NAMES.length).toBeGreaterThan(1);
    expect(board.queues.map((q) => q.name).sort()).toEqual([...QUEUE_NAMES]);
    expect(board.queues.every((q) => q.readOnlyMode)).toBe(true);
    expect(board.queues.find((q) => q.name === 'quotes')?.counts.delayed).toBe(1);
  });

  it('refuses every write: read-only queues answer 405 and change nothing', async () => {
    const app = dashboardApp();
    const auth = `Bearer ${TOKEN}`;
    await supertest(app).put('/ops/queues/api/queues/quotes/pause').set('Authorization', auth).expect(405);
    await supertest(app).put('/ops/queues/api/queues/quotes/clean/delayed').set('Authorization', auth).expect(405);
    expect(await env.queue.queue('quotes').isPaused()).toBe(false);
    expect((await env.queue.queue('quotes').getJobCounts('delayed')).delayed).toBe(1);
  });

  it('answers 429 to wrong tokens once an IP has spent its failures, but always serves the right token, from that IP too (issue #38)', async () => {
    const app = dashboardApp({ OPS_DASHBOARD_FAILURES_PER_IP: 3 });
    const from = (ip: string, authorization?: string) => {
      const r = supertest(app).get('/ops/queues/api/queues').set('X-Forwarded-For', ip);
      return authorization === undefined ? r : r.set('Authorization', authorization);
    };
    // Asking without a credential (a browser before its prompt) spends nothing.
    for (let i = 0; i < 5; i++) expectRefused(await from('198.51.100.9'));
    for (let i = 0; i < 3; i++) expectRefused(await from('198.51.100.9', `Bearer wrong-${i}`));
    // The operator's own token is served even from the address that spent its failures.
    await from('198.51.100.9', `Bearer ${TOKEN}`).expect(200);
    for (const authorization of ['Bearer wrong-3', undefined]) {
      const res = await from('198.51.100.9', authorization);
      expect(res.status).toBe(429);
      expect(errorBodySchema.parse(res.body)).toEqual({
        error: 'too many requests',
        code: 'rate_limited',
        limit: 'OPS_DASHBOARD_FAILURES_PER_IP',
        request_id: res.headers['x-request-id'],
      });
      const retry = Number(res.headers['retry-after']);
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(env.config.OPS_DASHBOARD_FAILURE_WINDOW_SECONDS);
    }
    await from('198.51.100.10', `Bearer ${TOKEN}`).expect(200);
    // One wrong token tried from many addresses spends its own budget (its fingerprint's).
    for (let i = 0; i < 3; i++) expectRefused(await from(`203.0.113.${i + 1}`, 'Bearer spread-guess'));
    expect((await from('203.0.113.50', 'Bearer spread-guess')).status).toBe(429);
    await from('203.0.113.50', `Bearer ${TOKEN}`).expect(200);
  });

  it('exports every queue depth on /metrics as rfq_queue_jobs', async () => {
    const res = await supertest(dashboardApp()).get('/metrics').expect(200);
    for (const queue of QUEUE_NAMES) expect(res.text).toMatch(new RegExp(`^rfq_queue_jobs\\{queue="${queue}",state="waiting"\\} \\d+$`, 'm'));
    expect(res.text).toMatch(/^rfq_queue_jobs\{queue="quotes",state="delayed"\} 1$/m);
  });

  describe('on a Redis Cluster', () => {
    let cluster: TestRedisCluster;
    let clusterEnv: TestEnv;

    beforeAll(async () => {
      cluster = await startRedisCluster({ masters: 3 });
      clusterEnv = await createTestEnv({ REDIS_CLUSTER_NODES: cluster.nodesEnv, OPS_DASHBOARD_TOKEN: TOKEN, OPS_DASHBOARD_FAILURES_PER_IP: '1' });
    });
    afterAll(async () => {
      await clusterEnv?.close();
      await cluster?.close();
    });

    it('reads every queue under its hash-tagged prefix, and keeps the failure budget there', async () => {
      expect(clusterEnv.redis.isCluster).toBe(true);
      await clusterEnv.queue.enqueue(JOBS['quotes.sweep'], {}, { delay: 3_600_000 });
      const app = buildApp(clusterEnv).app;
      const res = await supertest(app).get('/ops/queues/api/queues').set('Authorization', basic('ops', TOKEN)).expect(200);
      const board = res.body as BoardQueues;
      expect(board.queues.map((q) => q.name).sort()).toEqual([...QUEUE_NAMES]);
      expect(board.queues.find((q) => q.name === 'quotes')?.counts.delayed).toBe(1);
      expectRefused(await supertest(app).get('/ops/queues').set('Authorization', 'Bearer wrong'));
      expect((await supertest(app).get('/ops/queues').set('Authorization', 'Bearer wrong')).status).toBe(429);
    });
  });
});
