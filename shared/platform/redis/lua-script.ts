import { createHash } from 'node:crypto';
import type { Redis } from './redis';

type Arg = string | number;

/**
 * A Lua script run by its sha (EVALSHA), loaded on first use or after a Redis restart
 * (NOSCRIPT). Kept apart from ioredis' defineCommand so the shared connection is not mutated.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly source: string,
    private readonly numberOfKeys: number,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: string[], args: Arg[]): Promise<unknown> {
    if (keys.length !== this.numberOfKeys) throw new Error(`script expects ${this.numberOfKeys} keys, got ${keys.length}`);
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!String((err as Error)?.message).includes('NOSCRIPT')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
