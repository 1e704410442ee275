import { closeRedis, createRedis, luaScript, luaScriptFiles, type Redis } from '../../../shared/platform/redis';

/** Every Lua script of shared/platform/redis/lua compiles in Redis, under the sha its runs ask for. */
describe('Lua scripts in Redis', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = createRedis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    await closeRedis(redis);
  });

  it.each([...luaScriptFiles().keys()])('%s compiles, and its sha is the one EVALSHA sends', async (name) => {
    const script = luaScript(name);
    expect(await redis.script('LOAD', script.source)).toBe(script.sha);
  });
});
