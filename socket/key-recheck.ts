import type { RevokedAmong } from '../shared/events';
import type { Logger } from '../shared/platform/logging';
import type { ChannelIndex } from './channel-index';
import type { SocketMetrics } from './socket-metrics';

/** The registrations side of the re-check: sweeps registrations of removed keys (one replica per turn). */
export interface RemovedKeySweep {
  sweepRemovedKeys(revokedAmong: RevokedAmong, everyMs: number): Promise<number | null>;
}

/**
 * Revocations are announced once, over Redis pub/sub. A replica whose subscriber was
 * reconnecting at that moment never hears it, and the channels opened with the key would live
 * as long as the connection. So every `intervalMs` the replica asks the database which of the
 * keys behind its channels are gone and ends those channels, and (one replica per turn) drops
 * pubsub registrations made with removed keys. A run that fails (database away) is counted and
 * retried at the next turn; runs never overlap.
 */
export class KeyRecheck {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly deps: {
      index: ChannelIndex;
      revokedAmong: RevokedAmong;
      registrations: RemovedKeySweep;
      /** Ends the channels of these keys and forgets their cached lookups. */
      onRevoked: (keyIds: string[]) => void;
      intervalMs: number;
      logger: Logger;
      metrics: SocketMetrics;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), this.deps.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One re-check; a run already in progress is joined rather than doubled. */
  run(): Promise<void> {
    this.running ??= this.once().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async once(): Promise<void> {
    const { index, revokedAmong, registrations, onRevoked, intervalMs, logger, metrics } = this.deps;
    try {
      const ids = index.keyIds();
      if (ids.length > 0) {
        const revoked = await revokedAmong(ids);
        if (revoked.length > 0) {
          metrics.keyRechecks.inc({ result: 'revoked_keys' }, revoked.length);
          logger.info({ keys: revoked.length }, 'periodic re-check found removed keys: ending their channels');
          onRevoked(revoked);
        }
      }
      const dropped = await registrations.sweepRemovedKeys(revokedAmong, intervalMs);
      if (dropped) logger.info({ registrations: dropped }, 'dropped pubsub registrations of removed keys');
      metrics.keyRechecks.inc({ result: 'ok' });
    } catch (err) {
      metrics.keyRechecks.inc({ result: 'failed' });
      logger.warn({ err: (err as Error).message }, 'key re-check failed; retrying at the next interval');
    }
  }
}
