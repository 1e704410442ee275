import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger } from '../../shared/platform/logging';
import { CENSOR, REDACTED_PATHS } from '../../shared/platform/logging/redaction';

const ROUNDS = 7;
const LINES = Number(process.env.BENCH_LINES ?? 50_000);

/**
 * What one request's log line costs: the access line every request writes (`request`, five
 * fields), in CPU microseconds per line, median of seven rounds. Three loggers writing to a sink
 * that drops what it is given: the service's (`createLogger`, which censors secrets itself), the
 * same settings with pino's `redact` option on the same paths (what the service ran before), and
 * pino with no redaction at all (the baseline). The figure is the service's logger against the
 * baseline, as a ratio, from the same run.
 */
function discard(): Writable {
  return new Writable({
    write(_chunk, _enc, done) {
      done();
    },
  });
}

const common = {
  level: 'info',
  name: 'options-rfq',
  base: { pid: process.pid, roles: 'api' },
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label: string) => ({ level: label }) },
};

const loggers = {
  service: createLogger({ level: 'info', base: { roles: 'api' }, destination: discard() }),
  'pino redact': pino({ ...common, redact: { paths: [...REDACTED_PATHS], censor: CENSOR } }, discard()),
  bare: pino(common, discard()),
};

function perLine(logger: pino.Logger): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < LINES; i++) {
    logger.info({ request_id: '5b0c3c4e-5f0e-4a53-8a43-3f9d7c0e2b11', method: 'POST', route: '/api/quote', status: 201, ms: 1.3 }, 'request');
  }
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / LINES;
}

// Rounds interleaved, so a slow moment of the machine falls on all three alike.
for (const logger of Object.values(loggers)) perLine(logger); // warm-up
const rounds: Record<string, number[]> = { service: [], 'pino redact': [], bare: [] };
for (let r = 0; r < ROUNDS; r++) for (const [name, logger] of Object.entries(loggers)) rounds[name].push(perLine(logger));
const medians: Record<string, number> = {};
for (const [name, xs] of Object.entries(rounds)) medians[name] = xs.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)];
for (const [name, us] of Object.entries(medians)) process.stdout.write(`${name.padEnd(12)} ${us.toFixed(2)} µs/line\n`);
process.stdout.write(
  `log line: service ${(medians.service / medians.bare).toFixed(2)}x bare pino (pino's redact option: ${(medians['pino redact'] / medians.bare).toFixed(2)}x)\n`,
);
