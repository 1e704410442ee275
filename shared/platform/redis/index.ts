export { createRedis, createBullConnection, RedisKeys, closeRedis, bullPrefix } from './redis';
export type { Redis } from './redis';
export { LuaScript } from './lua-script';
