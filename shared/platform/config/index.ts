export { loadConfig, configFromProcess, ConfigError, CONFIG_KEYS } from './config';
export type { Config, Env } from './config';
export { ROLE_NAMES, isLoopbackHost } from './server.config';
export { DEFAULT_GEOBLOCK_HEADER } from './auth.config';
export type { Role } from './server.config';
export { redisEndpoint, parseClusterUrl, parseRedisNode } from './redis-endpoint';
export type { RedisEndpoint, RedisNode } from './redis-endpoint';
