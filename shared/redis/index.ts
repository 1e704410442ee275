export { createRedis, createBullConnection, RedisKeys, closeRedis } from './redis';
export type { Redis } from './redis';
