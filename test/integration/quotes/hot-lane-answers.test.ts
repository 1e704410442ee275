import { Writable } from 'node:stream';
import type { Express } from 'express';
import { createApp } from '../../../api/app';
import { NetworksService } from '../../../shared/networks';
import { createLogger } from '../../../shared/platform/logging';
import { networkFile, randomAddress } from '../../support/fixtures';
import { request } from '../../support/http';
import { orderBody } from '../../support/orders';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * The creates' lane (api/http/hot-lane.ts) answers `POST /api/quote` and `POST /api/orders` as
 * the /api router does: each request below is sent once by the lane's spelling of the path and
 * once with a trailing slash, which only the router answers, and the two answers must agree
 * (status, error body, headers a client reads; a 201's fields). The access log names the route
 * by its template.
 */
/** A browser origin the app allows: its CORS headers are part of what the two answers must share. */
const ORIGIN = 'https://app.example';

describe('the hot lane answers as the router does', () => {
  let env: TestEnv;
  let app: Express;
  let lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    env = await createTestEnv({ BODY_LIMIT_BYTES: '4096', CORS_ORIGINS: ORIGIN });
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        out += chunk.toString();
        lines = out
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger({ level: 'info', destination: sink });
    ({ app } = createApp({ config: env.config, logger, db: env.db, redis: env.redis, metrics: env.metrics, queue: env.queue }));
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(() => env.close());

  /** What two answers must share: status, the body without its request id, and the headers a client reads. */
  function comparable(res: request.Response) {
    const body = res.body as Record<string, unknown>;
    const { request_id: _r, ...rest } = body;
    return {
      status: res.status,
      body: res.status === 201 ? Object.keys(rest).sort() : rest,
      cacheControl: res.headers['cache-control'],
      contentType: res.headers['content-type'],
      requestId: typeof res.headers['x-request-id'],
      allowOrigin: res.headers['access-control-allow-origin'],
      exposeHeaders: res.headers['access-control-expose-headers'],
      vary: res.headers.vary,
    };
  }

  type Send = (path: string) => Promise<request.Response>;
  const post =
    (body: unknown, headers: Record<string, string> = {}): Send =>
    (path) =>
      request(app)
        .post(path)
        .set({ Origin: ORIGIN, ...headers })
        .send(body as object);
  const raw =
    (text: string, contentType: string): Send =>
    (path) =>
      request(app).post(path).set({ Origin: ORIGIN, 'Content-Type': contentType }).send(text);

  const cases: [string, string, () => Send][] = [
    ['a valid quote', '/api/quote', () => post(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs))],
    ['a quote with a field at fault', '/api/quote', () => post(quoteBody('0x1234', STRATEGY_ROWS[0].legs))],
    ['a quote body that is not JSON', '/api/quote', () => raw('{"chain_id": 31337,', 'application/json')],
    ['a quote body that is not JSON at all', '/api/quote', () => raw('chain_id=31337', 'text/plain')],
    ['a quote body over the size limit', '/api/quote', () => post({ pad: 'x'.repeat(8192) })],
    ['an order without a signature of its owner', '/api/orders', () => post(orderBody(randomAddress()))],
    ['an order with a forged bearer', '/api/orders', () => post(orderBody(randomAddress()), { Authorization: 'Bearer forged.jwt.value' })],
  ];

  it.each(cases)('%s: the same answer from the lane (%s) and the router', async (_what, path, make) => {
    const send = make();
    const before = lines.length;
    const byLane = await send(path);
    const byRouter = await send(`${path}/`);
    expect(comparable(byLane)).toEqual(comparable(byRouter));
    // The app's front layers ran on the lane's answer too (the lane runs them itself): CORS, the id, the cache policy.
    expect(comparable(byLane)).toMatchObject({ allowOrigin: ORIGIN, requestId: 'string', cacheControl: 'no-store' });
    // The lane's access line names the route by its template, whatever refused the request; the
    // router's does once its route was reached (a body refused by the parser, before any route, is
    // logged by its path).
    await new Promise((r) => setImmediate(r));
    const access = lines.slice(before).filter((l) => l.msg === 'request' || l.msg === 'request failed');
    expect(access.map((l) => [l.route, l.status])).toEqual([
      [path, byLane.status],
      [expect.stringMatching(new RegExp(`^${path}/?$`)), byRouter.status],
    ]);
  });
});
