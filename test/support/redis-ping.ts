import type { ChildProcess } from 'node:child_process';
import net from 'node:net';

/**
 * PING over a raw socket until the server answers PONG (not LOADING), or the process dies: a
 * redis-server a test started is ready. The answer must come from `child` itself (INFO's
 * process_id): a server left on the port by someone else, or an earlier one of this test, would
 * answer too, while the new one fails to bind and exits.
 */
export async function waitForPing(port: number, child: ChildProcess, stderr: () => string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited with ${child.exitCode}: ${stderr()}`);
    const answer = await ping(port);
    if (answer.pong && answer.pid !== undefined && answer.pid !== child.pid)
      throw new Error(`port ${port} is answered by another redis-server (pid ${answer.pid}), not the one started (pid ${child.pid}): ${stderr()}`);
    if (answer.pong) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`redis-server on ${port} did not answer PING: ${stderr()}`);
}

/** PING and INFO server, pipelined: whether it answered PONG, and the process id it reports. */
function ping(port: number): Promise<{ pong: boolean; pid?: number }> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let buf = '';
    const done = () => {
      s.destroy();
      const pid = /process_id:(\d+)/.exec(buf)?.[1];
      resolve({ pong: buf.startsWith('+PONG\r\n'), pid: pid === undefined ? undefined : Number(pid) });
    };
    s.setTimeout(500, done);
    s.on('connect', () => s.write('PING\r\nINFO server\r\n'));
    s.on('data', (d) => {
      buf += d.toString();
      // The PING's answer, then INFO's bulk string in full ($<length>, the text, CRLF).
      const bulk = /\r\n\$(\d+)\r\n/.exec(buf);
      if (buf.startsWith('-') || (bulk && buf.length >= bulk.index + bulk[0].length + Number(bulk[1]) + 2)) done();
    });
    s.on('error', () => resolve({ pong: false }));
    s.on('close', done);
  });
}
