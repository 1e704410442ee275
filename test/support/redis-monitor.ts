import net from 'node:net';

/** One command as MONITOR printed it: its arguments (the command name first) and the client that sent it. */
export interface MonitoredCommand {
  args: string[];
  source: string;
}

/** Reads the quoted arguments of a MONITOR line, undoing its escapes (\" \\ \n \r \t \a \b and \xHH). */
function monitoredArgs(text: string): string[] {
  const args: string[] = [];
  let i = text.indexOf('"');
  while (i >= 0 && i < text.length) {
    let arg = '';
    for (i++; i < text.length && text[i] !== '"'; i++) {
      if (text[i] !== '\\') {
        arg += text[i];
        continue;
      }
      const next = text[++i];
      if (next === 'x') {
        arg += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
        i += 2;
      } else arg += ({ n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' } as Record<string, string>)[next] ?? next;
    }
    args.push(arg);
    i = text.indexOf('"', i + 1);
  }
  return args;
}

/**
 * A MONITOR connection on a raw socket: every command Redis receives from any client is handed to
 * `onCommand`. Not ioredis's `monitor()`: when a monitored line arrives in the same read as
 * MONITOR's `+OK` (likely on a busy Redis), ioredis takes the line for the reply to a command it
 * never sent, rejects its promise and throws an unhandled "Command queue state error". Here every
 * line after the `+OK` is a monitored command. Resolves once Redis has answered MONITOR.
 */
export function redisMonitor(host: string, port: number, onCommand: (c: MonitoredCommand) => void): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    let buffered = '';
    let monitoring = false;
    socket.setEncoding('utf8');
    socket.once('error', reject);
    socket.on('connect', () => socket.write('MONITOR\r\n'));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (!monitoring) {
          if (line !== '+OK') {
            reject(new Error(`MONITOR answered ${line}`));
            socket.destroy();
            return;
          }
          monitoring = true;
          resolve({ close: () => socket.destroy() });
          continue;
        }
        // +<time> [<db> <client>] "<arg>" "<arg>" ...
        const source = /^\+\S+ \[\d+ ([^\]]+)\]/.exec(line)?.[1] ?? '';
        onCommand({ args: monitoredArgs(line), source });
      }
    });
  });
}
