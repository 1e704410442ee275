import type { DataSource } from 'typeorm';
import { LeaseLostError } from '../errors';
import { exec, type Queryable } from './sql';

/** A held lease: the holder's id and the fencing token it got when it took the network. */
export interface Fence {
  chainId: number;
  holder: string;
  token: number;
}

/**
 * The network leases in `indexer_leases`: at most one indexer process writes a network, the
 * holder of its lease. Every time is the database's clock, so hosts' clocks never matter. A
 * lease is taken when it has no row or its row has expired; each change of holder raises the
 * fencing token, and every write of the holder checks its (holder, token) inside its own
 * transaction (`check`), under a share lock that a taker's UPDATE waits for: a holder that lost
 * the lease (paused, partitioned, slow) cannot commit after the taker took over.
 */
export class LeaseStore {
  constructor(
    private readonly ds: DataSource,
    private readonly ttlMs: number,
  ) {}

  /** Takes the network's lease if it is free or expired (or already ours); null when another holder has it. */
  async acquire(chainId: number, holder: string): Promise<Fence | null> {
    const { rows } = await exec<{ token: string }>(
      this.ds,
      `INSERT INTO indexer_leases AS l (chain_id, holder, token, expires_at)
       VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
       ON CONFLICT (chain_id) DO UPDATE
         SET token = CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at > now() THEN l.token ELSE l.token + 1 END,
             acquired_at = CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at > now() THEN l.acquired_at ELSE now() END,
             holder = EXCLUDED.holder, renewed_at = now(), expires_at = EXCLUDED.expires_at
         WHERE l.expires_at <= now() OR l.holder = EXCLUDED.holder
       RETURNING token`,
      [chainId, holder, this.ttlMs],
    );
    return rows[0] ? { chainId, holder, token: Number(rows[0].token) } : null;
  }

  /** Extends a live lease by the TTL; false when it expired or changed holder (it is lost: stop writing). */
  async renew(f: Fence): Promise<boolean> {
    const { count } = await exec(
      this.ds,
      `UPDATE indexer_leases SET renewed_at = now(), expires_at = now() + $4 * interval '1 millisecond'
        WHERE chain_id = $1 AND holder = $2 AND token = $3 AND expires_at > now() RETURNING 1`,
      [f.chainId, f.holder, f.token, this.ttlMs],
    );
    return count === 1;
  }

  /** Lets the lease go at once (a clean stop): a standby takes the network at its next attempt. */
  async release(f: Fence): Promise<void> {
    await this.ds.query(`UPDATE indexer_leases SET expires_at = now() WHERE chain_id = $1 AND holder = $2 AND token = $3`, [f.chainId, f.holder, f.token]);
  }

  /**
   * Inside a write's transaction: the lease is still ours and live, or `LeaseLostError`. The row
   * stays share-locked until the transaction ends, so no one takes the lease meanwhile.
   */
  static async check(m: Queryable, f: Fence): Promise<void> {
    const { rows } = await exec(
      m,
      `SELECT 1 FROM indexer_leases WHERE chain_id = $1 AND holder = $2 AND token = $3 AND expires_at > clock_timestamp() FOR SHARE`,
      [f.chainId, f.holder, f.token],
    );
    if (rows.length !== 1) throw new LeaseLostError(f.chainId, f.token);
  }
}
