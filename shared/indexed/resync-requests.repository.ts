import type { Queryable } from '../platform/db';

/** An operator's request to roll a network back and re-derive it from `from_block` on. */
export interface ResyncRequest {
  id: number;
  chain_id: number;
  from_block: number;
  state: 'pending' | 'done';
  requested_at: string;
  done_at: string | null;
  /** The block the network was rolled back to (`from_block - 1`, or the cursor when it was already lower). */
  rolled_back_to: number | null;
  reopened_quotes: number | null;
  outcome: string | null;
}

const COLUMNS = `id::int AS id, chain_id, from_block::float8 AS from_block, state, requested_at, done_at,
  rolled_back_to::float8 AS rolled_back_to, reopened_quotes, outcome`;

type ResyncRow = Omit<ResyncRequest, 'requested_at' | 'done_at'> & { requested_at: Date | string; done_at: Date | string | null };

function shape(r: ResyncRow): ResyncRequest {
  return {
    ...r,
    requested_at: new Date(r.requested_at).toISOString(),
    done_at: r.done_at === null ? null : new Date(r.done_at).toISOString(),
  };
}

/**
 * `indexer_resync_requests`: how `ops indexer:resync` and a running tailer meet. The command
 * inserts a request; the network's tailer takes the pending ones between two of its steps and
 * closes them in the transaction of the rollback that performs them. Nothing is signalled
 * to a process: a tailer that is down finds the request when it starts.
 */
export class ResyncRequestRepository {
  constructor(private readonly q: Queryable) {}

  async create(chainId: number, fromBlock: number): Promise<ResyncRequest> {
    const rows: ResyncRow[] = await this.q.query(`INSERT INTO indexer_resync_requests (chain_id, from_block) VALUES ($1, $2) RETURNING ${COLUMNS}`, [
      chainId,
      fromBlock,
    ]);
    return shape(rows[0]);
  }

  async get(id: number): Promise<ResyncRequest | null> {
    const rows: ResyncRow[] = await this.q.query(`SELECT ${COLUMNS} FROM indexer_resync_requests WHERE id = $1`, [id]);
    return rows[0] ? shape(rows[0]) : null;
  }

  /** Pending requests of a network, oldest first. */
  async pending(chainId: number): Promise<ResyncRequest[]> {
    const rows: ResyncRow[] = await this.q.query(`SELECT ${COLUMNS} FROM indexer_resync_requests WHERE chain_id = $1 AND state = 'pending' ORDER BY id`, [
      chainId,
    ]);
    return rows.map(shape);
  }

  /** The latest requests of each of `chainIds`, newest first (at most `perChain` each). */
  async recent(chainIds: number[], perChain: number): Promise<ResyncRequest[]> {
    const rows: ResyncRow[] = await this.q.query(
      `SELECT ${COLUMNS} FROM (
         SELECT *, row_number() OVER (PARTITION BY chain_id ORDER BY id DESC) AS rn FROM indexer_resync_requests WHERE chain_id = ANY($1::int[])
       ) r WHERE rn <= $2 ORDER BY chain_id, id DESC`,
      [chainIds, perChain],
    );
    return rows.map(shape);
  }

  /** Closes requests with what was done; only pending ones change. */
  async complete(ids: number[], result: { rolled_back_to: number | null; reopened_quotes: number; outcome: string }): Promise<void> {
    await this.q.query(
      `UPDATE indexer_resync_requests SET state = 'done', done_at = now(), rolled_back_to = $2, reopened_quotes = $3, outcome = $4
        WHERE id = ANY($1::bigint[]) AND state = 'pending'`,
      [ids, result.rolled_back_to, result.reopened_quotes, result.outcome],
    );
  }
}
