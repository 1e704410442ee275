import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { DEVELOPMENT_SERVICE_SIGNER_KEY } from '../../shared/chain/service-signer';
import { stopOnBenchExit } from './bench-cleanup';

const ROOT = path.resolve(__dirname, '../..');

/**
 * Starts a TypeScript server script in its own process and resolves with the port from its
 * `readyMsg` log line (0 when that line names none: a process without a listener, such as the
 * indexer role alone, logs `started`). After that its log lines are drained unread, as a log
 * shipper would. It is stopped when the bench ends (bench-cleanup.ts), if it has not ended before.
 */
export function spawnServer(script: string, env: Record<string, string>, readyMsg: string): { child: ChildProcess; port: Promise<number> } {
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") reaches every server a bench starts.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    cwd: ROOT,
    // Benches run on their own loopback nodes with DEVCHAIN=off: the development signer must be named there.
    env: {
      PATH: process.env.PATH ?? '',
      ...(env.DEVCHAIN === 'off' && !env.SERVICE_SIGNER_KEY ? { SERVICE_SIGNER_KEY: DEVELOPMENT_SERVICE_SIGNER_KEY } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  stopOnBenchExit(child, script);
  const port = new Promise<number>((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const j = JSON.parse(line) as { msg?: string; port?: number };
          if (j.msg === readyMsg) {
            child.stdout?.off('data', onData);
            child.stdout?.resume();
            resolve(j.port ?? 0);
            return;
          }
        } catch {
          // not a JSON line
        }
      }
    };
    child.stdout?.on('data', onData);
    // BENCH_SERVER_LOG=<file>: every server's log lines are kept there too (an operator's view of a failed run).
    const keep = process.env.BENCH_SERVER_LOG;
    if (keep) {
      const out = createWriteStream(keep, { flags: 'a' });
      child.stdout?.on('data', (d: Buffer) => out.write(d));
      child.once('exit', () => out.end());
    }
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, port };
}
