export {
  createRedis,
  createBullConnection,
  createSubscriber,
  isClusterTarget,
  RedisKeys,
  hashTag,
  closeRedis,
  bullPrefix,
  shardedPubSub,
  publishCommand,
  publishTo,
  subscribeTo,
  unsubscribeFrom,
  onMessage,
  primaryNodes,
} from './redis';
export type { Redis, RedisTarget, RedisUse } from './redis';
export { LuaScript } from './lua-script';
