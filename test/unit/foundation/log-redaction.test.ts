import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger } from '../../../shared/platform/logging';
import { CENSOR, REDACTED_PATHS, redactSecrets } from '../../../shared/platform/logging/redaction';

/** A sink whose lines the test reads back, parsed, without the fields that differ between two loggers (time, pid). */
function sink(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  let out = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  const lines = () =>
    out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const { time: _t, pid: _p, ...rest } = JSON.parse(l) as Record<string, unknown>;
        return rest;
      });
  return { stream, lines };
}

class WithToJson {
  constructor(readonly token: string) {}
  toJSON() {
    return { shown: 'by toJSON', token: this.token };
  }
}

/** Lines that hold a secret at each redacted path, next to ones that only look like they might. */
const CORPUS: Record<string, unknown>[] = [
  { request_id: 'r1', method: 'POST', route: '/api/quote', status: 201, ms: 1.2 },
  { secret: 'top-secret', token: 'top-token', signature: '0xsig', password: 'pw', SERVICE_SIGNER_KEY: '0xkey' },
  { secret: null, token: 0, signature: false, password: { nested: 'object' } },
  { config: { SERVICE_SIGNER_KEY: '0xkey', REDIS_URL: 'redis://x' }, other: { secret: 's', token: 't', stream_token: 'st', kept: 1 } },
  { req: { method: 'GET', headers: { authorization: 'Bearer abc', 'x-quote-stream-token': 'qst', 'x-challenge-response': 'cr', host: 'h' } } },
  { req: { headers: 'not an object', token: 'req-token' } },
  { headers: { authorization: 'Bearer abc', 'x-quote-stream-token': 'kept at this path', accept: '*/*' } },
  {
    deep: { inner: { token: 'two levels down is not a redacted path' } },
    list: [{ token: 'in an array' }],
    stream_token: 'top-level stream_token is not redacted',
  },
  { maybe: { token: undefined }, empty: {}, nothing: null, n: 42, s: 'plain' },
  { instance: new WithToJson('class-token') },
];

describe('log redaction', () => {
  it("censors exactly what pino's own redact option censored with the same paths, line for line", () => {
    const ours = sink();
    const reference = sink();
    const logger = createLogger({ level: 'info', destination: ours.stream });
    const pinoRedact = pino(
      {
        level: 'info',
        name: 'options-rfq',
        base: { pid: process.pid },
        redact: { paths: [...REDACTED_PATHS], censor: CENSOR },
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      reference.stream,
    );
    for (const line of CORPUS) {
      logger.info(line, 'line');
      pinoRedact.info(line, 'line');
    }
    // A child logger's bindings are censored the same way.
    logger.child({ token: 'bound', ctx: { secret: 'bound-secret', id: 7 } }).info({ n: 1 }, 'child');
    pinoRedact.child({ token: 'bound', ctx: { secret: 'bound-secret', id: 7 } }).info({ n: 1 }, 'child');
    expect(ours.lines()).toHaveLength(CORPUS.length + 1);
    expect(ours.lines()).toEqual(reference.lines());
    // And the censoring did happen: no secret of the corpus reached a line.
    const text = JSON.stringify(ours.lines());
    for (const secret of [
      'top-secret',
      'top-token',
      '0xsig',
      '"pw"',
      '0xkey',
      'Bearer abc',
      'qst',
      '"cr"',
      'req-token',
      'class-token',
      'bound-secret',
      '"bound"',
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain('two levels down is not a redacted path');
  });

  it("never changes the caller's objects, and hands back a line with nothing to censor as it came", () => {
    const config = { SERVICE_SIGNER_KEY: '0xkey' };
    const headers = { authorization: 'Bearer abc' };
    const line = { config, req: { headers } };
    const out = redactSecrets(line);
    expect(out).toEqual({ config: { SERVICE_SIGNER_KEY: CENSOR }, req: { headers: { authorization: CENSOR } } });
    expect(line).toEqual({ config: { SERVICE_SIGNER_KEY: '0xkey' }, req: { headers: { authorization: 'Bearer abc' } } });
    expect(config.SERVICE_SIGNER_KEY).toBe('0xkey');
    expect(headers.authorization).toBe('Bearer abc');
    const plain = { request_id: 'r', method: 'GET', route: '/x', status: 200, ms: 0.4, nested: { a: 1 } };
    expect(redactSecrets(plain)).toBe(plain);
  });
});
