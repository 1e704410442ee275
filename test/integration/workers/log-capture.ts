import { Writable } from 'node:stream';
import pino from 'pino';
import type { Logger } from '../../../shared/platform/logging';

/** A real pino logger whose JSON lines a test can read back, to assert what was logged. */
export function captureLogs(level = 'info'): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, sink), lines: () => [...lines] };
}
