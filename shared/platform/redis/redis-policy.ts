import type { Logger } from '../logging';
import type { Metrics } from '../metrics';
import { primaryNodes, type Redis } from './redis';

/** What a start refuses: a Redis that evicts keys (BullMQ's jobs, the event log, registrations) under memory pressure. */
export class RedisEvictionRefused extends Error {
  constructor(
    readonly policy: string,
    readonly node: string,
  ) {
    super(
      `refusing to start: Redis ${node} has maxmemory-policy ${policy}; it would evict queued jobs, seq counters and ` +
        `registrations without a trace. Fix: CONFIG SET maxmemory-policy noeviction (and in redis.conf), or set ` +
        `REDIS_ALLOW_EVICTION=true to accept the loss`,
    );
    this.name = 'RedisEvictionRefused';
  }
}

export interface EvictionCheck {
  /** The policy of each master that answered, by `host:port`. */
  policies: Record<string, string>;
  /** Masters that refused CONFIG GET (a managed Redis hides it). */
  unreadable: string[];
}

/**
 * Reads `maxmemory-policy` from the one Redis or every master of a cluster. Anything but
 * `noeviction` throws `RedisEvictionRefused` (the entry point exits 78) unless `allowEviction`,
 * which logs a warning instead. A server that refuses `CONFIG` (managed Redis: renamed or ACL'd
 * away) is not a refusal: a warning, and `rfq_redis_config_unreadable` = 1 on /metrics.
 */
export async function checkEvictionPolicy(redis: Redis, opts: { allowEviction: boolean; logger: Logger; metrics?: Metrics }): Promise<EvictionCheck> {
  const out: EvictionCheck = { policies: {}, unreadable: [] };
  for (const node of primaryNodes(redis)) {
    const name = `${node.options.host ?? '?'}:${node.options.port ?? '?'}`;
    let reply: unknown;
    try {
      reply = await node.config('GET', 'maxmemory-policy');
    } catch (err) {
      out.unreadable.push(name);
      opts.logger.warn(
        { redis: name, err: (err as Error).message },
        'Redis refused CONFIG GET maxmemory-policy: cannot tell whether it evicts keys; make sure its policy is noeviction',
      );
      continue;
    }
    const policy = Array.isArray(reply) && typeof reply[1] === 'string' ? reply[1] : null;
    if (policy === null) {
      out.unreadable.push(name);
      opts.logger.warn({ redis: name }, 'Redis answered CONFIG GET maxmemory-policy with nothing: cannot tell whether it evicts keys');
      continue;
    }
    out.policies[name] = policy;
    if (policy === 'noeviction') continue;
    if (!opts.allowEviction) throw new RedisEvictionRefused(policy, name);
    opts.logger.warn(
      { redis: name, maxmemory_policy: policy },
      `Redis evicts keys (maxmemory-policy ${policy}) and REDIS_ALLOW_EVICTION=true accepts it: evicted jobs are redone by the sweepers, an evicted epoch key counts as a data loss, other evictions go unseen`,
    );
  }
  opts.metrics?.gauge('rfq_redis_config_unreadable', 'Redis masters that refused CONFIG GET maxmemory-policy at start').set(out.unreadable.length);
  opts.metrics
    ?.gauge('rfq_redis_eviction_allowed', 'Redis masters with a maxmemory-policy other than noeviction, accepted by REDIS_ALLOW_EVICTION')
    .set(Object.values(out.policies).filter((p) => p !== 'noeviction').length);
  return out;
}
