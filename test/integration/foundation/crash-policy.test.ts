import path from 'node:path';
import { spawnService, type RunningService } from '../../support/spawn-service';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { serviceEnv } from './service-env';

const CRASHER = path.join(__dirname, 'fixtures', 'crash-when-listening.mjs');

/**
 * After an unhandled rejection or an uncaught exception the process state is unknown: the
 * service logs it with its fields, closes everything through the one shutdown path, and exits
 * non-zero so its supervisor starts a clean one.
 */
describe('process crash policy (bin/main.ts)', () => {
  let env: TestEnv;
  let svc: RunningService | undefined;

  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterEach(async () => {
    await svc?.stop('SIGKILL');
    svc = undefined;
  });
  afterAll(() => env.close());

  it.each([
    ['rejection', 'unhandledRejection', 'boom: a promise nobody awaited'],
    ['exception', 'uncaughtException', 'boom: thrown from a callback'],
  ])(
    '%s: logs a fatal line with its fields, drains through the lifecycle, exits 1',
    async (kind, event, message) => {
      // The drain's deadline is not what this checks: on a busy machine the default 10 s can run out
      // before the last part (the shared Redis client) closes, which then reads as a close failed.
      svc = await spawnService(serviceEnv(env, { CRASH_KIND: kind, NODE_OPTIONS: `--import ${CRASHER}`, SHUTDOWN_TIMEOUT_MS: '60000' }));
      // 'close', not 'exit': the fatal and closing lines may be delivered after the exit.
      const code = await svc.closed;
      expect(code).toBe(1);
      const fatal = svc.lines.find((l) => l.level === 'fatal');
      expect(fatal).toMatchObject({ msg: 'process crash: shutting down', event, err: expect.objectContaining({ message, stack: expect.any(String) }) });
      expect(svc.lines.find((l) => l.msg === 'shutting down')).toMatchObject({ reason: event });
      const closed = svc.lines.filter((l) => l.msg === 'closed').map((l) => l.part);
      const failed = svc.lines.filter((l) => l.msg === 'close failed').map((l) => `${String(l.part)}: ${JSON.stringify(l.err)}`);
      expect({ closed, failed }).toEqual({ closed: expect.arrayContaining(['api http server', 'workers', 'redis', 'postgres pool']), failed: [] });
    },
    90_000,
  );
});
