import pg from 'pg';

/**
 * The pool's client class: a pg Client that always has an 'error' listener. pg-pool takes its
 * own listener off a new client when it hands it out, and TypeORM adds one a microtask later;
 * a FATAL read in the same chunk as the startup's ReadyForQuery (a session terminated just as it
 * connected: pg_terminate_backend, a restart) lands in between, and an 'error' event nobody
 * listens to kills the process. Here it only marks the client unusable: its query fails (the
 * request gets a 503, shared/errors) and the pool drops it on release.
 */
export class GuardedPgClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}
