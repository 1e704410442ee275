export {
  createRedis,
  createBullConnection,
  createSubscriber,
  describeRedis,
  lastConnectionError,
  reportOutages,
  isClusterTarget,
  RedisKeys,
  hashTag,
  closeRedis,
  QUIT_WAIT_MS,
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
export type { LuaScript } from './lua-script';
export { luaScript, luaScriptFiles, LUA_DIR } from './lua-scripts';
export { RedisEpoch, EPOCH_SEQ_SPAN, epochFloor, isEpochStart, type RedisLoss, type RedisLossReason } from './redis-epoch';
export { checkEvictionPolicy, RedisEvictionRefused, type EvictionCheck } from './redis-policy';
export { keySlot, tagForSlot, parseClusterNodes, isLiveMaster, ownsSlot, CLUSTER_SLOTS, type ClusterNode } from './cluster-slots';
export type { ShardLossReason } from './shard-markers';
