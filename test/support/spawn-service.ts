import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DEVELOPMENT_SERVICE_SIGNER_KEY } from '../../shared/chain/service-signer';
import { noteWarningLine } from './process-warnings';
import { compiledEntry } from './test-build';

const ROOT = path.resolve(__dirname, '../..');

export interface RunningService {
  child: ChildProcess;
  /** Every JSON log line so far. */
  lines: Record<string, unknown>[];
  /** What the process wrote to stderr so far (a crash's stack lands here). */
  stderr(): string;
  /** The HTTP port, or 0 for a role that serves none (workers, indexer) started with `readyMsg`. */
  port: number;
  url: string;
  /** SIGTERM, then the exit code, once the output is drained. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** The exit code, once the process has ended and its output is drained (`lines` is complete). */
  closed: Promise<number | null>;
}

/**
 * A stack started with DEVCHAIN=off runs against a test's own Hardhat node, whose mothership
 * registers the development signer: it names that key explicitly, since the service accepts the
 * public key unasked only on its own devchain (shared/chain/service-signer.ts). A test that sets
 * SERVICE_SIGNER_KEY, or runs with the devchain, gets nothing added.
 */
function testSigner(env: Record<string, string>): Record<string, string> {
  if (env.DEVCHAIN !== 'off' || env.SERVICE_SIGNER_KEY !== undefined) return {};
  // The session secret follows the signer rule too (issue #38): off the devchain each process
  // would pick its own, so the processes of one test share this one unless the test sets its own.
  return { SERVICE_SIGNER_KEY: DEVELOPMENT_SERVICE_SIGNER_KEY, ...(env.JWT_SECRET === undefined ? { JWT_SECRET: TEST_SESSION_SECRET } : {}) };
}

/** One session secret for every service this test process spawns off the devchain. */
const TEST_SESSION_SECRET = randomBytes(32).toString('hex');

/**
 * How a spawned service runs: compiled (`main`) on a given Node binary, or from its TypeScript
 * sources through tsx on this process's Node (what `npm start` does). By default it is the run's
 * build, `.build/tsc/bin/main.js`, when the global setup found it fresh (RFQ_TEST_BUILD_DIR,
 * test/support/test-build.ts), and the sources through tsx otherwise. The LTS pass of `.ci/run`
 * builds it first and names it, so every service it spawns runs compiled.
 */
export interface ServiceRuntime {
  node: string;
  /** The compiled entry, relative to the repository; none: the sources through tsx. */
  main?: string;
}

export function defaultRuntime(): ServiceRuntime {
  const main = compiledEntry('bin/main.ts');
  return { node: process.execPath, ...(main !== undefined ? { main } : {}) };
}

/** The command that starts the service in the given form. */
export function serviceCommand(runtime: ServiceRuntime = defaultRuntime()): [string, string[]] {
  return [runtime.node, runtime.main !== undefined ? [runtime.main] : ['--import', 'tsx', 'bin/main.ts']];
}

/**
 * Starts `bin/main.ts` as a real process with the given environment and waits for the log line
 * that says the HTTP server listens (it reports the port, so PORT=0 works). A role without an
 * HTTP server passes `readyMsg` instead: the first line with that `msg` means it is up (main
 * logs `started` once every role it runs has started).
 */
export async function spawnService(
  env: Record<string, string>,
  opts: { timeoutMs?: number; listenMsg?: string; readyMsg?: string; runtime?: ServiceRuntime } = {},
): Promise<RunningService> {
  // `node --import tsx` (or plain `node` on the compiled entry) keeps the service in this one
  // process, so a signal (SIGKILL included) reaches it rather than a wrapper that would leave it orphaned.
  const [command, args] = serviceCommand(opts.runtime);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...testSigner(env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  // 'close', not 'exit': it comes once stdout is drained too, so `lines` holds the process's last
  // log lines (a loaded machine can deliver them after 'exit').
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Given up on: it must not outlive the test that started it (nobody holds it to stop it).
      child.kill('SIGKILL');
      reject(new Error(`service did not listen in time; stderr: ${stderr}`));
    }, opts.timeoutMs ?? 60000);
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const raw = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const line = JSON.parse(raw) as Record<string, unknown>;
          lines.push(line);
          noteWarningLine(line, `spawned ${env.ROLES ?? 'all roles'} process ${child.pid}`);
          if (opts.readyMsg !== undefined && line.msg === opts.readyMsg) {
            clearTimeout(timer);
            resolve(typeof line.port === 'number' ? line.port : 0);
          } else if (opts.readyMsg === undefined && line.msg === (opts.listenMsg ?? 'api listening') && typeof line.port === 'number') {
            clearTimeout(timer);
            resolve(line.port);
          }
        } catch {
          // not a log line
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      // Why it stopped is a fatal JSON line (bin/process-output.ts); stderr holds anything else.
      const fatal = lines.filter((l) => l.level === 'fatal').map((l) => String(l.msg));
      reject(new Error(`service exited with ${code} before listening; ${fatal.length > 0 ? `fatal: ${fatal.join(' | ')}; ` : ''}stderr: ${stderr}`));
    });
  });
  return {
    child,
    lines,
    stderr: () => stderr,
    port,
    url: `http://127.0.0.1:${port}`,
    closed: exited,
    async stop(signal = 'SIGTERM') {
      // Already ended: still wait for 'close', so the last log lines are in `lines`.
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Everything a process printed, line by line, and how it ended. */
export interface FinishedProcess {
  /** The exit code; null when it had to be killed (it did not exit by itself within `killAfterMs`). */
  code: number | null;
  stdout: string[];
  stderr: string[];
  /** The stdout lines that parsed as JSON objects. */
  lines: Record<string, unknown>[];
}

/**
 * Runs `bin/main.ts` (as `spawnService` would) until it exits by itself, for a start that is
 * expected to fail. A process still running after `killAfterMs` is killed and reported with code
 * null: a bound against hanging for ever, not a measure of how fast it gave up.
 */
export async function runUntilExit(env: Record<string, string>, opts: { killAfterMs?: number; runtime?: ServiceRuntime } = {}): Promise<FinishedProcess> {
  const [command, args] = serviceCommand(opts.runtime);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...testSigner(env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, opts.killAfterMs ?? 180_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  const split = (text: string) => text.split('\n').filter((l) => l.length > 0);
  const stdout = split(out);
  const lines: Record<string, unknown>[] = [];
  for (const l of stdout) {
    try {
      const parsed: unknown = JSON.parse(l);
      if (parsed !== null && typeof parsed === 'object') {
        lines.push(parsed as Record<string, unknown>);
        noteWarningLine(parsed as Record<string, unknown>, `spawned ${env.ROLES ?? 'all roles'} process ${child.pid}`);
      }
    } catch {
      // not a log line: the caller sees it in `stdout`
    }
  }
  return { code: killed ? null : code, stdout, stderr: split(err), lines };
}
