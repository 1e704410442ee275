import type { DataSource } from 'typeorm';
import type { AuditState, IndexerErrorCode, ProviderState } from '../../shared/indexed';
import type { Fence } from './lease-store';

export type TailerState = 'starting' | 'backfill' | 'realtime' | 'stopped';

/** One network's row in `indexer_status`: what the API serves and judges health by. */
export interface StatusRow {
  chain_id: number;
  state: TailerState;
  head: number | null;
  head_timestamp: number | null;
  cursor: number | null;
  cursor_timestamp: number | null;
  rpc_ok: boolean;
  /** The last failure's text: for logs and operators only (the API shows `error_code`'s fixed words). */
  last_error: string | null;
  error_code: IndexerErrorCode | null;
  /** When halted: the operator command that resumes the network. */
  action: string | null;
  last_synced_at: Date | null;
  /** Each RPC URL's state and the last minute's provider failures by class. */
  provider: ProviderState | null;
  /** Where the standing audit is and what it found. */
  audit: AuditState | null;
}

/** Heartbeats: each write stamps `heartbeat_at` with the database clock, which the API compares with its own reads. */
export class StatusStore {
  constructor(
    private readonly ds: DataSource,
    /** With a lease, a row is overwritten only while the lease is this holder's: a tailer that lost its network cannot overwrite the new holder's status. */
    private readonly fence: Fence | null = null,
  ) {}

  fenced(fence: Fence): StatusStore {
    return new StatusStore(this.ds, fence);
  }

  async write(s: StatusRow): Promise<void> {
    await this.ds.query(
      `INSERT INTO indexer_status (chain_id, state, head, head_timestamp, cursor, cursor_timestamp, rpc_ok, last_error, last_synced_at, error_code, action,
                                   provider, audit, heartbeat_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13, now())
       ON CONFLICT (chain_id) DO UPDATE SET state = EXCLUDED.state, head = EXCLUDED.head, head_timestamp = EXCLUDED.head_timestamp,
         cursor = EXCLUDED.cursor, cursor_timestamp = EXCLUDED.cursor_timestamp, rpc_ok = EXCLUDED.rpc_ok,
         last_error = EXCLUDED.last_error, last_synced_at = EXCLUDED.last_synced_at, error_code = EXCLUDED.error_code,
         action = EXCLUDED.action, provider = EXCLUDED.provider, audit = EXCLUDED.audit, heartbeat_at = now()
       ${this.fence ? 'WHERE EXISTS (SELECT 1 FROM indexer_leases l WHERE l.chain_id = $1 AND l.holder = $14 AND l.token = $15)' : ''}`,
      [
        s.chain_id,
        s.state,
        s.head,
        s.head_timestamp,
        s.cursor,
        s.cursor_timestamp,
        s.rpc_ok,
        s.last_error?.slice(0, 2000) ?? null,
        s.last_synced_at,
        s.error_code,
        s.action,
        s.provider === null ? null : JSON.stringify(s.provider),
        s.audit === null ? null : JSON.stringify(s.audit),
        ...(this.fence ? [this.fence.holder, this.fence.token] : []),
      ],
    );
  }
}
