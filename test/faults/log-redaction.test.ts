import { Writable } from 'node:stream';
import { request } from '../support/http';
import { QueryFailedError } from 'typeorm';
import { createApp } from '../../api/app';
import { hashSecret } from '../../shared/platform/secrets';
import { SignedStreamTokens, SIGNED_TOKEN_LENGTH, streamTokenKeys } from '../../shared/platform/stream-tokens';
import { NetworksService } from '../../shared/networks';
import { createLogger, type Logger } from '../../shared/platform/logging';
import { networkFile, randomAddress } from '../support/fixtures';
import { quoteBody, STRATEGY_ROWS } from '../support/quotes';
import { createTestEnv, type TestEnv } from '../support/test-env';

/** A logger of the production kind (createLogger) whose lines the test can read. */
function capturingLogger(): { logger: Logger; text: () => string } {
  let out = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination: sink }), text: () => out };
}

/** Every 43-character base64url run in `text` (the shape of a stream token). */
// A recorded (random) token is 43 characters, a signed one SIGNED_TOKEN_LENGTH.
const tokenCandidates = (text: string) => [
  ...(text.match(/[A-Za-z0-9_-]{43}/g) ?? []),
  ...(text.match(new RegExp(`[A-Za-z0-9_-]{${SIGNED_TOKEN_LENGTH}}`, 'g')) ?? []),
];

/**
 * Finding 3: an unexpected database error on quote create was logged with TypeORM's
 * `parameters`: the taker's address, the salt and, through the idempotency record, a live
 * stream token. A database fault is forced with a trigger in this test's database only.
 */
describe('secrets stay out of logs when the database fails', () => {
  let env: TestEnv;
  let log: ReturnType<typeof capturingLogger>;
  let app: ReturnType<typeof createApp>['app'];

  beforeAll(async () => {
    env = await createTestEnv();
    log = capturingLogger();
    app = createApp({ config: env.config, logger: log.logger, db: env.db, redis: env.redis, metrics: env.metrics, queue: env.queue }).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    await env.db.query(`CREATE FUNCTION test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$ LANGUAGE plpgsql`);
  });
  afterAll(() => env.close());

  /** Hashes of the recorded stream tokens minted so far: the raw tokens were only ever in the server's memory. */
  async function mintedTokenHashes(): Promise<Set<string>> {
    const keys = await env.redis.keys(`${env.config.REDIS_PREFIX}stream-token:rfq:*`);
    return new Set(keys.map((k) => k.slice(k.lastIndexOf(':') + 1)));
  }

  /** A signed token is recognised by its HMAC under the server's key: any that verifies leaked. */
  const isSignedToken = (candidate: string) => new SignedStreamTokens(streamTokenKeys(env.config)).open('rfq', candidate) !== null;

  function expectNoSecrets(text: string, secrets: { taker: string; referrer: string }, minted: Set<string>) {
    const lower = text.toLowerCase();
    expect(lower).not.toContain(secrets.taker.toLowerCase().slice(2));
    expect(lower).not.toContain(secrets.referrer.toLowerCase().slice(2));
    // The salt and every other 32-byte value the insert carried.
    expect(text.match(/0x[0-9a-fA-F]{64}/g) ?? []).toEqual([]);
    expect(tokenCandidates(text).filter((c) => minted.has(hashSecret(c)) || isSignedToken(c))).toEqual([]);
  }

  /** A create sent while every insert into `table` fails: its answer, the log lines it caused, and the taker's secrets. */
  async function createWhileInsertsFail(table: 'quotes' | 'idempotency_keys', headers: Record<string, string> = {}) {
    await env.db.query(`CREATE TRIGGER test_refuse BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION test_refuse()`);
    try {
      const secrets = { taker: randomAddress(), referrer: randomAddress() };
      const before = log.text().length;
      const res = await request(app)
        .post('/api/quote')
        .set(headers)
        .send(quoteBody(secrets.taker, STRATEGY_ROWS[0].legs, { referrer: secrets.referrer }));
      return { res, text: log.text().slice(before), secrets };
    } finally {
      await env.db.query(`DROP TRIGGER test_refuse ON ${table}`);
    }
  }

  it('a failing quote insert is a bare 500 and its log line carries no parameter', async () => {
    const { res, text, secrets } = await createWhileInsertsFail('quotes');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal error', code: 'internal_error', request_id: expect.any(String) });
    // The failure is still logged, with what an operator needs to find it.
    expect(text).toContain('injected fault');
    expect(text).toContain('INSERT INTO quotes');
    expect(text).toContain(res.body.request_id);
    expectNoSecrets(text, secrets, await mintedTokenHashes());
  });

  it('a failing idempotency record (which holds the stream token) leaks no token either', async () => {
    const { res, text, secrets } = await createWhileInsertsFail('idempotency_keys', { 'Idempotency-Key': 'fault-1-0000000000000000000000000000' });
    expect(res.status).toBe(500);
    expect(text).toContain('INSERT INTO idempotency_keys');
    // The token is signed: minted in memory and never recorded, it could only leak through the log, which is read for it.
    expectNoSecrets(text, secrets, await mintedTokenHashes());
    expect((await env.db.query(`SELECT count(*)::int AS n FROM quotes WHERE taker_address = $1`, [secrets.taker]))[0].n).toBe(0);
  });

  it('every role logs errors through the same serializer: values in query text, parameters and driver detail are masked', () => {
    const { logger, text } = capturingLogger();
    const secret = '0x' + 'ab'.repeat(32);
    const err = new QueryFailedError(`UPDATE quotes SET taker_salt = '${secret}' WHERE id = 42`, [secret, 'tok3n-value'], new Error('injected'));
    Object.assign(err, { detail: `Key (taker_salt)=(${secret}) already exists.`, where: `SQL statement "x = '${secret}'"` });
    logger.error({ err, cause: new QueryFailedError('SELECT $1', [secret], new Error('also')) }, 'boom');
    logger.warn({ part: 'workers', error: err }, 'close failed');
    const out = text();
    expect(out).not.toContain('ab'.repeat(32));
    expect(out).not.toContain('tok3n-value');
    const [first] = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(first.err).toMatchObject({
      type: 'QueryFailedError',
      message: 'injected',
      query: `UPDATE quotes SET taker_salt = '?' WHERE id = ?`,
      parameters: '[2 redacted]',
    });
    expect(first.err.detail).toBe('Key (taker_salt)=(?) already exists.');
  });
});
