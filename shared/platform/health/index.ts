export { probePostgres, probeRedis } from './probes';
export type { ProbeResult } from './probes';
