import { randomBytes } from 'node:crypto';
import { waitFor } from '../integration/socket/socket-harness';
import { spawnService, type RunningService } from '../support/spawn-service';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { useWholeService } from '../support/whole-service';

const DASHBOARD_LINE = /^queue dashboard at http:\/\/127\.0\.0\.1:\d+\/ops\/queues: sign in with any user name and development_password as the password/;
const basic = (password: string) => `Basic ${Buffer.from(`anyone:${password}`).toString('base64')}`;

/**
 * The queue dashboard on a development stack: `npm start` with its devchain and no
 * OPS_DASHBOARD_TOKEN generates a token and prints one line saying where the dashboard is and how
 * to sign in, which works as printed. Production is unchanged: no token, no dashboard, no line.
 */
describe('the queue dashboard on a development stack', () => {
  describe('npm start with its devchain and no OPS_DASHBOARD_TOKEN', () => {
    const whole = useWholeService();

    it('prints one line with the URL and how to sign in, and the dashboard answers to the printed credentials only', async () => {
      const dashboardLines = () => whole.svc.lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('queue dashboard'));
      // Logged right after 'api listening' (which the start waited for): wait until every role has started.
      await waitFor(() => whole.svc.lines.some((l) => l.msg === 'started'), 60_000, "the service's 'started' line");
      const lines = dashboardLines();
      expect(lines).toHaveLength(1);
      const [line] = lines;
      expect(String(line.msg)).toMatch(DASHBOARD_LINE);
      expect(line).toMatchObject({ level: 'info', url: `${whole.svc.url}/ops/queues`, user: 'any user name' });
      const token = String(line.development_password);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(line.curl).toBe(`curl -H "Authorization: Bearer ${token}" ${whole.svc.url}/ops/queues/api/queues`);

      expect((await fetch(`${whole.svc.url}/ops/queues`)).status).toBe(401);
      expect((await fetch(`${whole.svc.url}/ops/queues`, { headers: { authorization: basic('not-the-printed-token-0123456789abcdef') } })).status).toBe(401);
      const page = await fetch(`${whole.svc.url}/ops/queues`, { headers: { authorization: basic(token) } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('options-rfq queues');
      const queues = await fetch(`${whole.svc.url}/ops/queues/api/queues`, { headers: { authorization: `Bearer ${token}` } });
      expect(queues.status).toBe(200);
      expect(((await queues.json()) as { queues: { name: string }[] }).queues.map((q) => q.name)).toEqual(expect.arrayContaining(['quotes', 'orders']));
    });
  });

  describe('production without OPS_DASHBOARD_TOKEN', () => {
    let env: TestEnv;
    let svc: RunningService | undefined;
    beforeAll(async () => {
      env = await createTestEnv();
    });
    afterAll(async () => {
      await svc?.stop('SIGTERM');
      await env?.close();
    });

    it('mounts no dashboard and prints no dashboard line', async () => {
      svc = await spawnService({
        ROLES: 'api,socket',
        NODE_ENV: 'production',
        DEVCHAIN: 'auto',
        DATABASE_URL: env.config.DATABASE_URL,
        REDIS_URL: env.config.REDIS_URL,
        REDIS_PREFIX: env.config.REDIS_PREFIX,
        JWT_SECRET: randomBytes(32).toString('hex'),
        SERVICE_SIGNER_KEY: `0x${randomBytes(32).toString('hex')}`,
      });
      const running = svc;
      await waitFor(() => running.lines.some((l) => l.msg === 'started'), 60_000, "the service's 'started' line");
      const answer = await fetch(`${svc.url}/ops/queues`);
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({ code: 'route_not_found' });
      expect(svc.lines.filter((l) => /dashboard/.test(String(l.msg)))).toEqual([]);
    });
  });
});
