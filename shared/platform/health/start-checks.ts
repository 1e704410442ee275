import type { Logger } from '../logging';

/**
 * One dependency a starting process needs, and how to tell it answers. `url` is what the log
 * lines show: already without its password (or path secrets, for an RPC provider's URL).
 */
export interface StartCheck {
  /** What it is, as an operator names it: `postgres`, `redis`, `rpc 31337`. */
  dependency: string;
  url: string;
  /** Resolves when the dependency answers; throws what went wrong otherwise (`WaitingCannotHelp` to stop at once). */
  probe(): Promise<void>;
}

/** A probe's failure that no amount of waiting cures (a refused password, a database that does not exist): the start stops at once. */
export class WaitingCannotHelp extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WaitingCannotHelp';
  }
}

/** A dependency that did not answer in time, or refused in a way waiting cannot cure. */
export interface UnreachableDependency {
  dependency: string;
  url: string;
  /** The last attempt's error. */
  error: string;
  attempts: number;
  /** True when waiting could not have helped (the start stopped at the first such answer). */
  refused: boolean;
}

/** What `checkDependencies` throws: the start cannot go on, and these are why. */
export class DependenciesUnreachable extends Error {
  constructor(
    readonly unreachable: UnreachableDependency[],
    readonly timeoutSeconds: number,
  ) {
    super(`refusing to start: ${unreachable.map((u) => `${u.dependency} (${u.url})`).join(', ')} unreachable`);
    this.name = 'DependenciesUnreachable';
  }
}

/** Pauses between attempts at one dependency: short at first (a server still starting), then every 2 s. */
const RETRY_DELAYS_MS = [250, 500, 1000, 2000];

/**
 * Tries every dependency until it answers, all at once, with one log line per attempt naming the
 * dependency and its URL: `info` when it answered, `warn` with the error when not. A dependency
 * still unreachable `timeoutSeconds` after the first attempt (0: after one attempt), or one that
 * refused in a way waiting cannot cure, makes it throw `DependenciesUnreachable` naming each such
 * dependency, once every other check has ended too.
 */
export async function checkDependencies(checks: StartCheck[], opts: { timeoutSeconds: number; logger: Logger }): Promise<void> {
  const deadline = Date.now() + opts.timeoutSeconds * 1000;
  const results = await Promise.all(checks.map((check) => untilReachable(check, deadline, opts)));
  const unreachable = results.filter((r): r is UnreachableDependency => r !== null);
  if (unreachable.length > 0) throw new DependenciesUnreachable(unreachable, opts.timeoutSeconds);
}

async function untilReachable(check: StartCheck, deadline: number, opts: { timeoutSeconds: number; logger: Logger }): Promise<UnreachableDependency | null> {
  const { dependency, url } = check;
  for (let attempt = 1; ; attempt++) {
    try {
      await check.probe();
      opts.logger.info({ dependency, url, attempt }, `start check: ${dependency} answers`);
      return null;
    } catch (err) {
      const error = (err as Error)?.message || String(err);
      const refused = err instanceof WaitingCannotHelp;
      const delay = RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)];
      const last = refused || Date.now() + delay > deadline;
      opts.logger.warn(
        { dependency, url, attempt, err: error, ...(last ? {} : { retry_in_ms: delay, start_timeout_seconds: opts.timeoutSeconds }) },
        refused
          ? `start check: ${dependency} refused: ${error}`
          : last
            ? `start check: ${dependency} unreachable: ${error}`
            : `start check: ${dependency} unreachable, trying again: ${error}`,
      );
      if (last) return { dependency, url, error, attempts: attempt, refused };
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
