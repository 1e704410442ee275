import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RfqClient, ApiError } from '../../client/src';
import { NetworksService } from '../../shared/networks';
import { networkFile } from '../support/fixtures';
import { quoteBody, STRATEGY_ROWS } from '../support/quotes';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { newWallet } from '../support/wallets';
import { startReplica, type Replica } from '../integration/socket/socket-harness';

/** The client's REST side against the real API on 127.0.0.1 (real Postgres and Redis). */
describe('client: REST calls, typed results and ApiError', () => {
  let env: TestEnv;
  let server: Replica;
  let client: RfqClient;
  const quoteCount = async () => (await env.db.query('SELECT count(*)::int AS n FROM quotes'))[0].n as number;

  /** The ApiError a call rejects with (failing the test when it resolves or throws something else). */
  async function apiError(call: Promise<unknown>): Promise<ApiError> {
    const err = await call.then(
      () => new Error('the call succeeded'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }

  beforeAll(async () => {
    env = await createTestEnv();
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    server = await startReplica(env, { withApi: true });
    client = new RfqClient(`http://127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    await server.close();
    await env.close();
  });

  it('a 400 is an ApiError with status, code, error text, the field in details and the request id; nothing is stored', async () => {
    const before = await quoteCount();
    const { expires_in: _omitted, ...body } = quoteBody(newWallet().address, STRATEGY_ROWS[0].legs);
    const err = await apiError(client.createQuote(body as never));
    expect(err.status).toBe(400);
    expect(err.code).toBe('validation_failed');
    expect(err.error).toBe('invalid request: expires_in: is required');
    expect(err.details).toEqual([{ path: 'expires_in', message: 'is required' }]);
    expect(err.requestId).toEqual(expect.any(String));
    expect(err.body).toEqual({ error: err.error, code: err.code, details: err.details, request_id: err.requestId });
    expect(await quoteCount()).toBe(before);
  });

  it('a 401 is an ApiError with its code and text: a bearer that is no credential', async () => {
    const err = await apiError(client.as('not-a-token').me());
    expect(err.status).toBe(401);
    expect(err.code).toBe('wallet_required');
    expect(err.error).toBe('an authenticated wallet is required: a SIWE bearer, a taker delegate or a maker API key');
    expect(err.details).toBeUndefined();
    expect(err.message).toBe(`GET /api/me -> 401 wallet_required: ${err.error}`);
  });

  it('a 401 on a poll with the wrong stream token', async () => {
    const created = await client.createQuote(quoteBody(newWallet().address, STRATEGY_ROWS[0].legs) as never);
    const err = await apiError(client.pollQuote(created.quote.id, 'wrong-token'));
    expect(err.status).toBe(401);
    expect(err.code).toBe('invalid_stream_token');
    expect(err.error).toBe('invalid stream token for this quote');
  });

  it("an answer that is not the API's error body (a proxy's HTML 502) is still an ApiError, code unexpected_response", async () => {
    const proxy = http.createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'edge-1' });
      res.end('<html>bad gateway</html>');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
    try {
      const err = await apiError(new RfqClient(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`).networks());
      expect(err.status).toBe(502);
      expect(err.code).toBe('unexpected_response');
      expect(err.error).toBe('<html>bad gateway</html>');
      expect(err.requestId).toBe('edge-1');
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('signs in with a viem account; the session speaks for the wallet; the signing client keeps no bearer', async () => {
    const wallet = newWallet();
    const session = await client.signIn(wallet);
    expect(session.address).toBe(wallet.address);
    expect(session.expires_in).toBeGreaterThan(0);
    expect(client.credential).toBeUndefined();
    expect(await client.as(session.token).me()).toEqual({ credential: 'siwe', address: wallet.address, tier: 'freemium' });
  });

  it('creates a quote and polls it with the stream token; public data is typed', async () => {
    const taker = newWallet().address;
    const created = await client.createQuote(quoteBody(taker, STRATEGY_ROWS[0].legs) as never, { idempotencyKey: randomUUID() });
    expect(created.topic).toBe(`rfq_stream:${created.stream_token}`);
    const poll = await client.pollQuote(created.quote.id, created.stream_token);
    expect(poll.quote).toEqual(created.quote);
    expect(poll.offers).toEqual([]);
    const { networks } = await client.networks();
    expect(networks.map((n) => n.chain_id)).toContain(31337);
  });

  it('a freemium wallet registers for the request feed of a chain', async () => {
    const wallet = newWallet();
    const maker = client.as((await client.signIn(wallet)).token);
    const reg = await maker.registerFreemium(31337);
    expect(reg).toMatchObject({ status: 'registered', tier: 'freemium', chain_id: 31337, quotes_requests_topic: 'quotes:31337:requests' });
  });
});
