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
      svc = await spawnService(serviceEnv(env, { CRASH_KIND: kind, NODE_OPTIONS: `--import ${CRASHER}` }));
      // 'close', not 'exit': the fatal and closing lines may be delivered after the exit.
      const code = await svc.closed;
      expect(code).toBe(1);
      const fatal = svc.lines.find((l) => l.level === 'fatal');
      expect(fatal).toMatchObject({ msg: 'process crash: shutting down', event, err: expect.objectContaining({ message, stack: expect.any(String) }) });
      expect(svc.lines.find((l) => l.msg === 'shutting down')).toMatchObject({ reason: event });
      const closed = svc.lines.filter((l) => l.msg === 'closed').map((l) => l.part);
      expect(closed).toEqual(expect.arrayContaining(['api http server', 'workers', 'redis', 'postgres pool']));
    },
    90_000,
  );
});
