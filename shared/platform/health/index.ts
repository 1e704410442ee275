export { probePostgres, probeRedis } from './probes';
export type { ProbeResult } from './probes';
export { checkDependencies, DependenciesUnreachable, WaitingCannotHelp, type StartCheck, type UnreachableDependency } from './start-checks';
export { postgresStartCheck, redisStartCheck } from './start-probes';
