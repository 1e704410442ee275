import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './contract-artifacts';
import { probeChainId, rawRpc } from '../shared/chain/clients';

/** A Hardhat 2 node running as a child process. */
export interface HardhatNode {
  rpcUrl: string;
  port: number;
  pid: number;
  /** Stops the node and waits for it to exit; safe to call twice. */
  stop(): Promise<void>;
  /**
   * Lets the node outlive the caller's module: stops collecting its output and drops every
   * listener that holds the caller's objects. The node still dies with this process (its stdin
   * guard) and no longer keeps this process alive; `stop` no longer waits for it. For the jest worker's shared node (test/support/worker-chain.ts).
   */
  release(): void;
}

/**
 * The child runs Hardhat's CLI behind a guard that exits when its stdin closes: stdin is a
 * pipe from this process, so the node dies with its parent even on SIGKILL, and never keeps
 * a port busy after a crashed test run.
 */
const GUARD = "process.stdin.on('end',()=>process.exit(0));process.stdin.on('error',()=>process.exit(0));process.stdin.resume();require(process.argv[1]);";

const TAIL_LINES = 40;

/** Starts `hardhat node` bound to 127.0.0.1:`port` and waits until it answers. */
export async function startHardhatNode(opts: { port: number; timeoutMs?: number }): Promise<HardhatNode> {
  // Always loopback: inside a container Hardhat would listen on every interface, and its accounts' keys are public.
  const host = '127.0.0.1';
  const rpcUrl = `http://${host}:${opts.port}`;
  const cli = require.resolve('hardhat/internal/cli/cli.js', { paths: [REPO_ROOT] });
  const child = spawn(
    process.execPath,
    ['-e', GUARD, cli, 'node', '--hostname', host, '--port', String(opts.port), '--config', path.join(REPO_ROOT, 'hardhat.config.js')],
    {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', NODE_OPTIONS: '' },
    },
  );
  const tail: string[] = [];
  // Ready means *our* child printed that it listens, not merely that something answers on the port.
  const listening = { seen: false };
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (line.includes('Started HTTP and WebSocket JSON-RPC server')) listening.seen = true;
    }
    tail.splice(0, Math.max(0, tail.length - TAIL_LINES));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('error', (err) => tail.push(`spawn failed: ${err.message}`));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  let released = false;
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (released) {
      child.kill('SIGKILL');
      return;
    }
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin?.end();
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await waitUntilReady(rpcUrl, child, exited, listening, opts.timeoutMs ?? 30_000);
    // Per-request logging costs time on every call and nobody reads it.
    await rawRpc(rpcUrl, 'hardhat_setLoggingEnabled', [false]);
  } catch (err) {
    await stop();
    throw new Error(`hardhat node on ${rpcUrl} did not start: ${(err as Error).message}\n${tail.join('\n')}`, { cause: err });
  }
  const release = () => {
    released = true;
    process.removeListener('exit', killOnExit);
    for (const stream of [child.stdout, child.stderr]) {
      stream?.removeAllListeners('data');
      stream?.resume();
    }
    child.removeAllListeners('exit');
    child.removeAllListeners('error');
    // Nor does it keep this process alive: a jest worker that ends its last file exits by itself
    // (and the node with it) instead of being killed for failing to exit gracefully.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
  };
  return { rpcUrl, port: opts.port, pid: child.pid ?? -1, stop, release };
}

async function waitUntilReady(
  rpcUrl: string,
  child: ChildProcess,
  exited: Promise<number | null>,
  listening: { seen: boolean },
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined || child.exitCode !== null) throw new Error(`process exited with code ${exitCode ?? child.exitCode}`);
    if (listening.seen && (await probeChainId(rpcUrl, 500)) !== null) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no answer within ${timeoutMs} ms`);
}
