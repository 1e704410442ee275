import type http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { routeSpecsOf } from '../../../api/http/mount-routes';
import { closeServer, listen } from '../../../api/server';
import { Lifecycle } from '../../../shared/platform/lifecycle';
import { socketOnlyApp } from '../../../socket';
import { specViolation } from '../../support/conformance-check';
import { buildApp } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * A request Node's HTTP parser refuses never reaches Express: the server answers it itself
 * (`clientError`). Every HTTP server a role listens with (api/server.ts: the api, and the socket
 * role's own) answers it with the error body and a request id, as every other 4xx, over a raw
 * connection here because an HTTP client would not send such a request.
 */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Writes `bytes` on a fresh connection and reads until the server closes it (so an answer here means it did). */
function raw(port: number, bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [head, body] = [text.slice(0, split), text.slice(split + 4)];
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = body;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: parsed });
      socket.destroy();
    });
    socket.end(bytes);
  });
}

const LONG_QUERY = `GET /api/margin/loans?borrower=${'x'.repeat(16 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

describe.each([
  ['api', 'GET', '/api/margin/loans'],
  ['socket', 'GET', '/socket'],
] as const)('requests the HTTP parser refuses, on the %s role server', (role, method, path) => {
  let env: TestEnv;
  let server: http.Server;
  let port: number;
  let app: ReturnType<typeof buildApp>['app'] | undefined;

  beforeAll(async () => {
    env = await createTestEnv();
    app = role === 'api' ? buildApp(env).app : undefined;
    server = await listen({
      app: app ?? socketOnlyApp(env),
      host: '127.0.0.1',
      port: 0,
      logger: env.logger,
      lifecycle: new Lifecycle(env.logger, 10_000),
      name: role,
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    if (server) await closeServer(server);
    await env?.close();
  });

  /** The answer is the error body with a request id equal to X-Request-Id, JSON, and says the connection closes. */
  function expectErrorBody(a: RawAnswer, status: number, code: string, error: string): void {
    expect(a.status).toBe(status);
    expect(a.body).toEqual({ error, code, request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(a.headers['x-request-id']).toBe((a.body as { request_id: string }).request_id);
    expect(a.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(a.headers.connection).toBe('close');
  }

  it('a 16 KB query string: 431 request_headers_too_large with the error body', async () => {
    const a = await raw(port, LONG_QUERY.replace('/api/margin/loans', path));
    expectErrorBody(a, 431, 'request_headers_too_large', 'request line and headers larger than 16384 bytes');
    // The answer is one the route declares (api/http/route-answers.ts: every route can answer the parser's errors).
    if (app)
      expect(specViolation(routeSpecsOf(app)!, method, path, { status: a.status, headers: a.headers, body: a.body, text: JSON.stringify(a.body) })).toBeNull();
  });

  it('a header over the limit: 431 as well', async () => {
    const a = await raw(port, `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ${'y'.repeat(20_000)}\r\n\r\n`);
    expectErrorBody(a, 431, 'request_headers_too_large', 'request line and headers larger than 16384 bytes');
  });

  it.each([
    ['a malformed request line', 'NOT AN HTTP REQUEST\r\n\r\n'],
    ['a method that does not exist', `BREW ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`],
    ['a header name with a space', `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: 1\r\n\r\n`],
    ['a body length that is not a number', `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ten\r\n\r\n`],
  ])('%s: 400 malformed_request with the error body', async (_what, bytes) => {
    const a = await raw(port, bytes);
    expectErrorBody(a, 400, 'malformed_request', 'the request is not valid HTTP/1.1');
    if (app)
      expect(specViolation(routeSpecsOf(app)!, method, path, { status: a.status, headers: a.headers, body: a.body, text: JSON.stringify(a.body) })).toBeNull();
  });

  it('a request after a refused one, on a kept-alive connection: the good one is answered, then the bad one with the error body', async () => {
    const a = await raw(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nNOT AN HTTP REQUEST\r\n\r\n`);
    // The first answer is the probe's 200; the second, read from the rest of the stream, the parser's 400.
    expect(a.status).toBe(200);
    const rest = String(a.body);
    expect(rest).toContain('HTTP/1.1 400 Bad Request');
    expect(rest).toContain('"code":"malformed_request"');
  });

  it('still serves a well-formed request afterwards', async () => {
    const a = await raw(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(a.status).toBe(200);
  });
});
