import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { freePort } from '../support/chain';
import { waitForPing } from '../support/redis-ping';
import { runTempDir } from '../support/run-temp-dir';

/**
 * A private `redis-server` for one test file, on its own 127.0.0.1 port, that the test can stop
 * and start again on the same port: a real outage, not a mocked client.
 *
 * It writes an append-only file synced on every write, as a production Redis that BullMQ and the
 * event log depend on is configured, so a restart keeps queues, seq counters and history; what
 * the outage itself costs is then what the service does about it.
 */
export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM waits for the AOF to be flushed; SIGKILL does not). */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts it again on the same port with the same data directory; resolves once it answers PING. Running already: nothing to do. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers, as with a hung server or a partition. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Stops it and removes its data directory. */
  close(): Promise<void>;
}

export interface TestRedisOptions {
  /**
   * false: no append-only file and no RDB snapshot, so a restart comes back empty (a Redis
   * without persistence, or one that lost its disk). Default true (appendfsync always).
   */
  persistence?: boolean;
  /** More `redis-server` arguments, e.g. `['--maxmemory', '8mb', '--maxmemory-policy', 'allkeys-lru']`. */
  args?: string[];
}

export async function startTestRedis(opts: TestRedisOptions = {}): Promise<TestRedis> {
  const port = await freePort();
  const dir = runTempDir('faults-redis');
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const killOnExit = () => {
    child?.kill('SIGCONT');
    child?.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  const start = async () => {
    // A second server on the port would fail to bind and exit while the first, no longer
    // tracked, outlived the test (a whole run left one redis-server behind this way).
    if (child && child.exitCode === null && child.signalCode === null) return;
    const c = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        ...(opts.persistence === false ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always']),
        '--dir',
        dir,
        '--logfile',
        '',
        ...(opts.args ?? []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    c.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child = c;
    exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    await waitForPing(port, c, () => stderr);
  };

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    c.kill('SIGCONT');
    c.kill(signal);
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async close() {
      await stop('SIGKILL');
      process.removeListener('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
