import type { Logger } from '../logging';

type Closer = { name: string; close: () => Promise<void> | void };

/** The longest the exit waits for the log lines still being written. */
const LOG_FLUSH_BOUND_MS = 2000;

/**
 * The one shutdown path. Every server, worker, pool and watcher registers how to close;
 * `shutdown()` closes them in reverse order of registration (servers before the pools
 * they use), each bounded by the shared deadline, and never twice.
 */
export class Lifecycle {
  private readonly closers: Closer[] = [];
  private closing: Promise<void> | null = null;
  /** Set by a crash: the process then exits non-zero whatever started the shutdown. */
  private crashed = false;

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Registers how to close a part. A part opened after the drain began (a signal that arrived
   * during start-up) would be missed by it, so it is closed at once; refusing it instead would
   * turn a plain SIGTERM into a crash with exit code 1.
   */
  onClose(name: string, close: Closer['close']): void {
    if (this.closing) {
      this.logger.info({ part: name }, 'opened after shutdown began: closing it now');
      void Promise.resolve()
        .then(close)
        .catch((err: unknown) => this.logger.error({ part: name, err }, 'close failed'));
      return;
    }
    this.closers.push({ name, close });
  }

  /** Whether the drain has begun: start-up stops opening further parts. */
  get shuttingDown(): boolean {
    return this.closing !== null;
  }

  shutdown(reason: string): Promise<void> {
    if (!this.closing) this.closing = this.run(reason);
    return this.closing;
  }

  private async run(reason: string): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    this.logger.info({ reason, parts: this.closers.length }, 'shutting down');
    for (const c of [...this.closers].reverse()) {
      const left = Math.max(1, deadline - Date.now());
      const started = Date.now();
      try {
        await Promise.race([
          Promise.resolve().then(c.close),
          new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${left} ms`)), left).unref()),
        ]);
        this.logger.info({ part: c.name, ms: Date.now() - started }, 'closed');
      } catch (err) {
        this.logger.error({ part: c.name, err }, 'close failed');
      }
    }
  }

  /**
   * Resolves once the logger has written every line so far. Stdout is written asynchronously
   * (logging/logger.ts): the flush pino runs at exit writes what is queued, but not the write a
   * thread is still making, so on a busy machine the drain's last line ('closed' for the last
   * part) was lost now and then. Bounded: a stdout nobody reads does not hold the exit.
   */
  private logsWritten(): Promise<void> {
    return new Promise((resolve) => {
      const bound = setTimeout(resolve, LOG_FLUSH_BOUND_MS);
      bound.unref();
      const done = () => {
        clearTimeout(bound);
        resolve();
      };
      try {
        this.logger.flush(done);
      } catch {
        done();
      }
    });
  }

  /** SIGTERM/SIGINT drain then exit; a second signal exits at once. */
  installSignalHandlers(exit: (code: number) => void = (code) => process.exit(code)): void {
    const onSignal = (signal: NodeJS.Signals) => {
      if (this.closing) {
        this.logger.warn({ signal }, 'second signal: exiting now');
        exit(1);
        return;
      }
      void this.shutdown(signal)
        .then(() => this.logsWritten())
        .then(() => exit(this.crashed ? 1 : 0));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }

  /**
   * The crash policy. After an unhandled rejection or an uncaught exception nobody knows what
   * state the process is in (a half-applied write, a dead timer, a leaked connection), so it
   * does not carry on: it logs one fatal line with the error's fields, closes everything through
   * this lifecycle (in-flight requests drain, pools close), and exits 1 for its supervisor to
   * start a clean process. An error while a signal's drain is under way is logged and changes
   * nothing: closing connections under in-flight work makes that work fail.
   */
  installCrashHandlers(exit: (code: number) => void = (code) => process.exit(code)): void {
    const crash = (event: 'unhandledRejection' | 'uncaughtException', err: unknown, origin?: string) => {
      const fields = err instanceof Error ? { err } : { reason: String(err) };
      if (this.closing && !this.crashed) {
        // A signal's drain closes pools and connections under work still in flight; the commands
        // that fail because of it are the drain working, not a crash. Logged, exit code kept.
        this.logger.error({ event, origin, ...fields }, 'error during shutdown');
        return;
      }
      this.crashed = true;
      this.logger.fatal({ event, origin, ...fields }, 'process crash: shutting down');
      void this.shutdown(event)
        .then(() => this.logsWritten())
        .then(() => exit(1));
    };
    process.on('unhandledRejection', (reason) => crash('unhandledRejection', reason));
    process.on('uncaughtException', (err, origin) => crash('uncaughtException', err, origin));
  }
}
