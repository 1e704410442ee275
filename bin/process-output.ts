import { ConfigError } from '../shared/platform/config';
import { DependenciesUnreachable } from '../shared/platform/health';
import { createLogger, type Logger } from '../shared/platform/logging';

/**
 * Everything a role process prints is a JSON log line, from its first instant to its exit: this
 * file holds what runs before the configured logger exists, or after start-up has failed.
 */

/** Exit codes of a start that did not happen (sysexits.h): a bad environment, a dependency that did not answer. */
export const EXIT_CONFIG = 78;
export const EXIT_UNAVAILABLE = 69;

/** The logger of a process whose configuration could not be read (its LOG_LEVEL unknown): info and up. */
export function bootstrapLogger(): Logger {
  return createLogger({ level: 'info' });
}

/**
 * Node writes process warnings (a library's DeprecationWarning, a listener leak) to stderr as
 * text. Its own writer is replaced by one JSON line per warning, at `warn`, with the warning's
 * name, code, message and stack (which names the caller that caused it).
 */
export function logProcessWarnings(logger: () => Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    logger().warn(
      { warning: { name: warning.name, code: warning.code, message: warning.message, stack: warning.stack } },
      `process warning: ${warning.name}: ${warning.message}`,
    );
  });
}

/**
 * Until the lifecycle's crash policy is installed, an uncaught error is one fatal JSON line and
 * exit 1, not Node's raw stack trace. Returns the function that removes this handler.
 */
export function crashBeforeStart(logger: () => Logger): () => void {
  const crash = (err: unknown) => {
    logger().fatal({ err }, 'process crash during start-up');
    process.exit(1);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  return () => {
    process.off('uncaughtException', crash);
    process.off('unhandledRejection', crash);
  };
}

/**
 * Why the start failed, as fatal JSON lines an operator can act on, and the exit code: 78 for a
 * bad environment (each bad key named), 69 for a dependency that did not answer in
 * START_TIMEOUT_SECONDS or refused the process (one line per dependency, with its URL without
 * the password), 1 for anything else.
 */
export function reportStartFailure(err: unknown, logger: Logger): number {
  if (err instanceof ConfigError) {
    logger.fatal({ problems: err.problems }, `refusing to start: ${err.problems.map((p) => `${p.key}: ${p.message}`).join('; ')}`);
    return EXIT_CONFIG;
  }
  if (err instanceof DependenciesUnreachable) {
    for (const u of err.unreachable) {
      const why = u.refused
        ? `it refused the connection: ${u.error}`
        : `still unreachable after START_TIMEOUT_SECONDS (${err.timeoutSeconds} s, ${u.attempts} attempt${u.attempts === 1 ? '' : 's'}): ${u.error}`;
      logger.fatal(
        { dependency: u.dependency, url: u.url, attempts: u.attempts, err: u.error, start_timeout_seconds: err.timeoutSeconds },
        `refusing to start: ${u.dependency} at ${u.url} ${why}`,
      );
    }
    return EXIT_UNAVAILABLE;
  }
  logger.fatal({ err }, 'start failed');
  return 1;
}
