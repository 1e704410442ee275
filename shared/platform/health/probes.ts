import type { DataSource } from 'typeorm';
import { primaryNodes, type Redis } from '../redis';

export interface ProbeResult {
  name: string;
  ok: boolean;
  ms: number;
  /** What a client may read: fixed words, never driver text (which can carry hosts, users, paths). */
  problem?: string;
  /** The driver's own words, for the log only. */
  error?: string;
}

class ProbeTimeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function probe(name: string, ms: number, run: () => Promise<unknown>): Promise<ProbeResult> {
  const started = Date.now();
  try {
    await withTimeout(run(), ms, name);
    return { name, ok: true, ms: Date.now() - started };
  } catch (err) {
    const problem = err instanceof ProbeTimeout ? `no answer within ${ms} ms` : 'unreachable';
    return { name, ok: false, ms: Date.now() - started, problem, error: (err as Error).message || String(err) };
  }
}

/** Postgres answers `SELECT 1`. A pool that never opened tries to open now, so a late database still turns ready. */
export function probePostgres(ds: DataSource, timeoutMs: number): Promise<ProbeResult> {
  return probe('postgres', timeoutMs, async () => {
    if (!ds.isInitialized) await ds.initialize();
    await ds.query('SELECT 1');
  });
}

/**
 * Redis answers PING. On a cluster every master must answer (a shard that is down fails the
 * keys of its slots), and the cluster client must hold a slot map (status `ready`).
 */
export function probeRedis(redis: Redis, timeoutMs: number): Promise<ProbeResult> {
  return probe('redis', timeoutMs, async () => {
    if (!redis.isCluster) {
      const pong = await redis.ping();
      if (pong !== 'PONG') throw new Error(`unexpected PING reply ${pong}`);
      return;
    }
    if (redis.status !== 'ready') throw new Error(`cluster client is ${redis.status}`);
    const masters = primaryNodes(redis);
    if (masters.length === 0) throw new Error('cluster client knows no master');
    for (const pong of await Promise.all(masters.map((m) => m.ping()))) if (pong !== 'PONG') throw new Error(`unexpected PING reply ${pong}`);
  });
}
