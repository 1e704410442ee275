import type { Logger } from '../../shared/platform/logging';
import type { StatusRow, StatusStore } from '../store/status-store';

/**
 * Keeps one network's status in memory and writes it on a timer, whatever the tailer is doing
 * (a tailer stuck in RPC retries still reports that the RPC is down). State changes are
 * written at once.
 */
export class StatusReporter {
  private row: StatusRow;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: StatusStore,
    chainId: number,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {
    this.row = {
      chain_id: chainId,
      state: 'starting',
      head: null,
      head_timestamp: null,
      cursor: null,
      cursor_timestamp: null,
      rpc_ok: false,
      last_error: null,
      error_code: null,
      action: null,
      last_synced_at: null,
      provider: null,
      audit: null,
    };
  }

  get current(): Readonly<StatusRow> {
    return this.row;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
    void this.flush();
  }

  update(patch: Partial<Omit<StatusRow, 'chain_id'>>, opts: { now?: boolean } = {}): void {
    const stateChanged = (patch.state !== undefined && patch.state !== this.row.state) || (patch.rpc_ok !== undefined && patch.rpc_ok !== this.row.rpc_ok);
    this.row = { ...this.row, ...patch };
    if (stateChanged || opts.now) void this.flush();
  }

  /** Writes the current row; writes are serialised so an older snapshot never lands last. */
  flush(): Promise<void> {
    const snapshot = { ...this.row };
    this.writing = this.writing.then(() =>
      this.store.write(snapshot).catch((err: unknown) => {
        this.logger.warn({ chain_id: snapshot.chain_id, err: (err as Error).message }, 'could not write indexer status');
      }),
    );
    return this.writing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
