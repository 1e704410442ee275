import { spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A Postgres primary and its streaming replica from the machine's own binaries
 * (/usr/lib/postgresql/<newest>/bin): `initdb` + `pg_ctl` for the primary (`wal_level=replica`),
 * `pg_basebackup -R -X stream` for the replica, each on its own port with its data under `dir`.
 * initdb refuses root, so as root every tool runs as the `postgres` OS user (`runuser`). The
 * machine's own server is never touched. Used by `npm run stack:scaled` and by the replica tests.
 */
export interface PostgresPair {
  primaryPort: number;
  replicaPort: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> of the primary or the replica. */
  url(which: 'primary' | 'replica', database: string): string;
  /** Stops the replica (`immediate`: as if it crashed; `fast`: a clean stop). */
  stopReplica(mode?: 'immediate' | 'fast'): void;
  /** Starts the stopped replica again (it resumes streaming from where it was). */
  startReplica(): void;
  /** The running postmasters' pids (primary first). */
  pids(): number[];
  /** Stops both (replica first) and waits for their postmasters to exit. */
  stop(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

function pgBin(name: string): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? spawnSync('ls', [base], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) if (existsSync(path.join(base, v, 'bin', name))) return path.join(base, v, 'bin', name);
  return name;
}

/** Runs a Postgres tool to completion, as the `postgres` OS user when this process is root. */
function pgRun(cwd: string, tool: string, args: string[]): void {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', pgBin(tool), ...args]] : [pgBin(tool), args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd });
  if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout || r.error?.message}`);
}

function ownedByPostgres(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (asRoot) {
    const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim();
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim();
    chownSync(dir, Number(uid), Number(gid));
  }
  return dir;
}

function postmasterPid(dir: string): number | null {
  try {
    return Number(readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function exitOf(pid: number, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
}

/**
 * `pg_ctl start` on `data`; on failure the error carries the end of the server's own log, which
 * says why (pg_ctl itself only says "could not start server"), so a port taken between its pick
 * and the bind reads as such (`PORT_TAKEN` tells the caller to pick again).
 */
function startServer(ctl: (data: string, ...args: string[]) => void, data: string): void {
  const log = path.join(data, 'server.log');
  try {
    ctl(data, '-l', log, '-w', '-t', '120', 'start');
  } catch (err) {
    const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-5).join('\n') : '(no server log)';
    throw new Error(`${(err as Error).message}\nserver log ${log}:\n${tail}`, { cause: err });
  }
}

/** What a server log says when another process took the port between its pick and Postgres's bind. */
export const PORT_TAKEN = /could not bind|Address already in use|could not create any TCP\/IP sockets/;

/** Starts the pair under `dir` (which must exist and be readable by the `postgres` user). */
export function startPostgresPair(opts: { dir: string; primaryPort: number; replicaPort: number }): PostgresPair {
  const { dir, primaryPort, replicaPort } = opts;
  const sock = ownedByPostgres(path.join(dir, 'pg-sock'));
  const primary = ownedByPostgres(path.join(dir, 'pg-primary'));
  const replica = path.join(dir, 'pg-replica');
  const started: string[] = [];
  const ctl = (data: string, ...args: string[]) => pgRun(dir, 'pg_ctl', ['-D', data, ...args]);
  const stop = async () => {
    for (const data of [...started].reverse()) {
      const pid = postmasterPid(data);
      try {
        ctl(data, '-m', 'fast', '-w', '-t', '60', 'stop');
      } catch {
        if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
      }
      if (pid) await exitOf(pid, 60_000);
    }
    started.length = 0;
  };
  try {
    pgRun(dir, 'initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    const conf = [
      `port = ${primaryPort}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${sock}'`,
      'wal_level = replica',
      'max_wal_senders = 5',
      'hot_standby = on',
      'max_connections = 300',
      'fsync = off',
      'shared_buffers = 64MB',
    ];
    appendFileSync(path.join(primary, 'postgresql.conf'), `\n# primary + streaming replica\n${conf.join('\n')}\n`);
    startServer(ctl, primary);
    started.push(primary);
    ownedByPostgres(replica);
    pgRun(dir, 'pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replica, '-R', '-X', 'stream', '-c', 'fast']);
    appendFileSync(path.join(replica, 'postgresql.conf'), `\nport = ${replicaPort}\n`);
    startServer(ctl, replica);
    started.push(replica);
    const inRecovery = spawnSync('psql', ['-h', '127.0.0.1', '-p', String(replicaPort), '-U', 'postgres', '-Atc', 'SELECT pg_is_in_recovery()'], {
      encoding: 'utf8',
    });
    if (inRecovery.stdout.trim() !== 't') throw new Error(`the replica is not streaming: ${inRecovery.stdout}${inRecovery.stderr}`);
  } catch (err) {
    void stop();
    throw err;
  }
  return {
    primaryPort,
    replicaPort,
    url: (which, database) => `postgres://postgres@127.0.0.1:${which === 'primary' ? primaryPort : replicaPort}/${database}`,
    stopReplica(mode = 'immediate') {
      ctl(replica, '-m', mode, '-w', '-t', '60', 'stop');
      started.splice(started.indexOf(replica), 1);
    },
    startReplica() {
      startServer(ctl, replica);
      started.push(replica);
    },
    pids: () => started.map(postmasterPid).filter((p): p is number => p !== null),
    stop,
  };
}
