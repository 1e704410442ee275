import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Lifecycle } from '../shared/platform/lifecycle';
import type { Logger } from '../shared/platform/logging';
import { answerParserErrors } from '../shared/platform/http/parser-errors';

/**
 * Listens with `app` (or a bare 404 handler for a socket-only process) and registers the
 * drain: stop accepting, let in-flight requests finish, then cut idle and remaining sockets.
 * A request Node's parser refuses (headers over 16 KB, a malformed request line, too slow) is
 * answered with the error body too (shared/platform/http/parser-errors.ts).
 */
export async function listen(opts: { app?: Express; host: string; port: number; logger: Logger; lifecycle: Lifecycle; name: string }): Promise<http.Server> {
  const server = http.createServer(
    opts.app ??
      ((req, res) => {
        res.writeHead(req.url === '/healthz' ? 200 : 404, { 'content-type': 'application/json' });
        res.end(req.url === '/healthz' ? '{"status":"ok"}' : '{"error":"not found","code":"route_not_found"}');
      }),
  );
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  answerParserErrors(server, opts.logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  opts.logger.info({ host: addr.address, port: addr.port }, `${opts.name} listening`);
  opts.lifecycle.onClose(`${opts.name} http server`, () => closeServer(server));
  return server;
}

/** Stops accepting, waits for in-flight requests; the lifecycle deadline bounds the wait. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
