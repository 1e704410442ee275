import { Client } from 'pg';

/**
 * Loaded after the test environment in every test file (jest.config.js `setupFilesAfterEnv`).
 * pg 8 queues a query sent to a client that is already executing one, and warns
 * ("Calling client.query() when the client is already executing a query") only from the second
 * one queued, i.e. three at once; pg 9 refuses the second. So the test process reports the
 * second, with the stack of the code that sent it, to the same guard that fails a test on pg's
 * own deprecation warnings (test/support/jest-environment.js). A client in pipeline mode is meant
 * to take several; this service never turns it on.
 */
interface ClientInternals {
  _activeQuery?: unknown;
  _queryQueue?: unknown[];
  pipeline?: boolean;
}

const seen = () => (globalThis as { __rfqProcessWarnings?: { source: string; name: string; message: string; stack?: string }[] }).__rfqProcessWarnings;
const reported = new Set<string>();
const proto = Client.prototype as unknown as { query: (this: ClientInternals, ...args: unknown[]) => unknown };
const query = proto.query;

proto.query = function (this: ClientInternals, ...args: unknown[]) {
  const busy = (this._activeQuery !== null && this._activeQuery !== undefined) || (this._queryQueue?.length ?? 0) > 0;
  if (busy && !this.pipeline) {
    // Deep enough to reach the service code under TypeORM's and pg's frames.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 50;
    const stack = new Error('a second query on a busy pg client').stack ?? '';
    Error.stackTraceLimit = limit;
    if (!reported.has(stack)) {
      reported.add(stack);
      seen()?.push({
        source: 'the jest process',
        name: 'DeprecationWarning',
        message:
          'Calling client.query() when the client is already executing a query: two at once on one client (pg 8 queues it and warns from the third; pg@9 refuses it)',
        stack,
      });
    }
  }
  return query.apply(this, args);
};
