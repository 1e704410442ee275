import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { BASE_URL } from './test-db';

/** One row of PgBouncer's `SHOW STATS` / `SHOW POOLS`, the columns tests read. */
export interface PoolerRow {
  database: string;
  [column: string]: string | number | null;
}

export interface PgBouncer {
  port: number;
  /** A URL of `db` through PgBouncer. */
  url(db: string): string;
  /** A query on PgBouncer's admin console (`SHOW STATS`, `SHOW POOLS`, ...). */
  admin(command: string): Promise<PoolerRow[]>;
  stop(): Promise<void>;
}

/** The system user PgBouncer runs as when started by root (it refuses to run as root). */
const RUN_AS = 'postgres';

/**
 * Debian's PgBouncer in transaction pooling mode, in front of the tests' Postgres, in a
 * temporary directory of its own: every database of that server under its own name, trust
 * authentication for the tests' role, `statement_timeout` (a startup parameter the roles' pools
 * send) in `ignore_startup_parameters`, as docs/SCALING.md tells an operator to configure it.
 */
export async function startPgBouncer(port: number): Promise<PgBouncer> {
  const target = new URL(BASE_URL);
  const user = decodeURIComponent(target.username || 'postgres');
  const dir = mkdtempSync(path.join(tmpdir(), 'rfq-pgbouncer-'));
  chmodSync(dir, 0o755);
  const ini = path.join(dir, 'pgbouncer.ini');
  const users = path.join(dir, 'userlist.txt');
  writeFileSync(users, `"${user}" ""\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 400',
      'ignore_startup_parameters = extra_float_digits,statement_timeout',
      '',
    ].join('\n'),
  );
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const pw = spawnSync('id', ['-u', RUN_AS], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', RUN_AS], { encoding: 'utf8' });
    for (const f of [dir, ini, users]) chownSync(f, Number(pw.stdout.trim()), Number(gid.stdout.trim()));
  }
  const child: ChildProcess = spawn('pgbouncer', [...(asRoot ? ['-u', RUN_AS] : []), ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const admin = async (command: string): Promise<PoolerRow[]> => {
    // The admin console speaks the simple query protocol only.
    const c = new Client({ connectionString: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/pgbouncer` });
    await c.connect();
    try {
      return (await c.query(command)).rows as PoolerRow[];
    } finally {
      await c.end();
    }
  };

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited at start: ${log}`);
    try {
      await admin('SHOW VERSION');
      break;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`pgbouncer did not answer in 30 s: ${log}`, { cause: err });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    url: (db) => `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/${db}`,
    admin,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
