import { freePort } from './chain';
import { spawnService, type RunningService } from './spawn-service';
import { createTestEnv, type TestEnv } from './test-env';

/** The whole service of one describe block, once its beforeAll has run. */
export interface WholeService {
  readonly env: TestEnv;
  readonly svc: RunningService;
}

/**
 * The whole service as `npm start` runs it (all four roles and its own devchain, on a fresh
 * database), started before the enclosing describe's tests and stopped after them. `extra`
 * adds environment variables (a shorter sweep interval, say).
 */
export function useWholeService(extra: Record<string, string> = {}): WholeService {
  let env: TestEnv | undefined;
  let svc: RunningService | undefined;
  beforeAll(async () => {
    env = await createTestEnv();
    svc = await spawnService(
      {
        DATABASE_URL: env.config.DATABASE_URL,
        REDIS_URL: env.config.REDIS_URL,
        REDIS_PREFIX: env.config.REDIS_PREFIX,
        DEVCHAIN: 'auto',
        DEVCHAIN_PORT: String(await freePort()),
        INDEXER_POLL_INTERVAL_MS: '200',
        ...extra,
      },
      { timeoutMs: 90000 },
    );
  }, 120000);
  afterAll(async () => {
    await svc?.stop('SIGTERM');
    await env?.close();
  });
  return {
    get env() {
      if (!env) throw new Error('the whole service is not started yet: use it inside a test');
      return env;
    },
    get svc() {
      if (!svc) throw new Error('the whole service is not started yet: use it inside a test');
      return svc;
    },
  };
}
