import type { ChildProcess } from 'node:child_process';
import net from 'node:net';

/** PING over a raw socket until the server answers PONG (not LOADING), or the process dies: a redis-server a test started is ready. */
export async function waitForPing(port: number, child: ChildProcess, stderr: () => string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited with ${child.exitCode}: ${stderr()}`);
    if ((await ping(port)) === '+PONG') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`redis-server on ${port} did not answer PING: ${stderr()}`);
}

function ping(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let buf = '';
    s.setTimeout(500, () => s.destroy());
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('\r\n')) {
        s.destroy();
        resolve(buf.split('\r\n')[0]);
      }
    });
    s.on('error', () => resolve(''));
    s.on('close', () => resolve(buf.split('\r\n')[0]));
  });
}
