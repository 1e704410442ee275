import pino, { type Logger } from 'pino';

export type { Logger };

/** Secrets that must never reach a log line, wherever they appear in a logged object. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-quote-stream-token"]',
  'req.headers["x-challenge-response"]',
  'headers.authorization',
  'secret',
  'token',
  'signature',
  'password',
  '*.secret',
  '*.token',
  '*.stream_token',
];

/** The process logger: JSON lines on stdout, one `role` field per process. */
export function createLogger(opts: { level: string; name?: string; base?: Record<string, unknown> }): Logger {
  return pino({
    level: opts.level,
    name: opts.name ?? 'options-rfq',
    base: { pid: process.pid, ...opts.base },
    redact: { paths: REDACT, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
