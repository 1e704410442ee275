import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEVELOPMENT_SERVICE_SIGNER_KEY } from '../../shared/chain/service-signer';
import { packageRoot, scriptStartArgs } from '../../shared/platform/files';
import { haproxyConfig } from './haproxy-config';
import { describeMissing, preflight } from './preflight';
import { PORT_TAKEN, startPostgresPair, type PostgresPair } from './postgres-pair';

/**
 * `npm run stack:scaled`: the scaled topology on this machine, from the machine's own binaries,
 * everything in one temporary directory and on free ports (the machine's own Postgres and Redis
 * are never touched):
 *
 * - a Redis Cluster of three masters with one replica each (`redis-server --cluster-enabled`,
 *   `redis-cli --cluster create --cluster-replicas 1`), which every role uses through
 *   REDIS_CLUSTER_NODES (`--redis plain` starts one plain Redis for the roles instead);
 * - a Postgres primary and its streaming replica (initdb, pg_ctl, pg_basebackup -R from
 *   /usr/lib/postgresql/<version>/bin, run as the `postgres` OS user when started as root);
 * - the devchain (Hardhat with the reference contracts, registered in the primary's networks table);
 * - two API, two socket, two worker and two indexer processes;
 * - HAProxy in front of the API and socket replicas (WebSockets, health checks on /readyz).
 *
 * Prints the base URL, then one JSON line (`"event":"ready"`) with ports, pids (also by name:
 * `processes`, `postgres_pids`) and the temporary directory. A process that dies before that
 * line fails the start; one that dies after it is logged and the rest carry on (fault tests kill
 * replicas on purpose). SIGTERM or SIGINT stops everything and removes the directory; the exit
 * code is 0 when nothing was left behind.
 */

type RedisMode = 'plain' | 'cluster';

/** The repository (every child's working directory), whether this file runs from its source or compiled in a build folder. */
const ROOT = packageRoot(__dirname);

interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
  exited: Promise<void>;
}

const procs: Proc[] = [];
let postgres: PostgresPair | null = null;
let tmp = '';
let stopping: Promise<void> | null = null;
let ready = false;

function say(msg: string): void {
  process.stderr.write(`[stack:scaled] ${msg}\n`);
}

function parseArgs(argv: string[]): { redis: RedisMode } {
  let redis: RedisMode = 'cluster';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = a.startsWith('--redis=') ? a.slice(8) : a === '--redis' ? argv[++i] : undefined;
    if (v === undefined) throw new Error(`unknown argument ${a}; usage: npm run stack:scaled [-- --redis plain|cluster]`);
    if (v !== 'plain' && v !== 'cluster') throw new Error(`--redis must be plain or cluster, not ${v}`);
    redis = v;
  }
  return { redis };
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

const taken = new Set<number>();

/**
 * The Postgres pair on ports picked just before it starts: a port the kernel handed out free can
 * be taken by another process before Postgres binds it (a busy machine runs many), so a start
 * that fails on its bind is tried again, up to three times, on new ports in a fresh folder.
 */
async function startPostgresOnFreePorts(tmp: string, ports: { pgPrimary: number; pgReplica: number }): Promise<PostgresPair> {
  for (let attempt = 1; ; attempt++) {
    ports.pgPrimary = await freePort();
    ports.pgReplica = await freePort();
    const dir = path.join(tmp, `pg-${attempt}`);
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    try {
      return startPostgresPair({ dir, primaryPort: ports.pgPrimary, replicaPort: ports.pgReplica });
    } catch (err) {
      if (attempt >= 3 || !PORT_TAKEN.test((err as Error).message)) throw err;
      say(`Postgres could not bind port ${ports.pgPrimary} or ${ports.pgReplica} (taken meanwhile); again on new ports`);
    }
  }
}

/** A free port below 55536 whose +10000 is free too (a Redis Cluster node's bus port). */
async function freePort(withBus = false): Promise<number> {
  for (;;) {
    const p = 20000 + Math.floor(Math.random() * 30000);
    if (taken.has(p) || (withBus && taken.has(p + 10000))) continue;
    if (!(await portFree(p)) || (withBus && !(await portFree(p + 10000)))) continue;
    taken.add(p);
    if (withBus) taken.add(p + 10000);
    return p;
  }
}

/** Starts a long-running child in its own process group (so its children go with it), output to a log file. */
function start(name: string, cmd: string, args: string[], env: Record<string, string> = {}): Proc {
  const log = path.join(tmp, 'logs', `${name}.log`);
  const out = createWriteStream(log);
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.pipe(out, { end: false });
  child.stderr?.pipe(out, { end: false });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const proc = { name, child, log, exited };
  procs.push(proc);
  void exited.then(() => {
    out.end();
    if (stopping) return;
    say(`${name} exited (${child.exitCode ?? child.signalCode}); its log:\n${tail(log)}`);
    // Before the stack is ready a death is a failed start; after, the rest carries on as a
    // deployment would (a fault test kills replicas on purpose), and SIGTERM still stops all.
    if (!ready) void shutdown(1);
  });
  return proc;
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Resolves when `test` holds, polling every 200 ms; fails after `timeoutMs` naming `what`. */
async function until(what: string, test: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await test()) return;
    } catch {
      // not yet
    }
    if (stopping) throw new Error(`stopping while waiting for ${what}`);
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const logHas = (p: Proc, needle: string) => () => readFileSync(p.log, 'utf8').includes(needle);
const redisCli = (port: number, ...args: string[]) =>
  spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();

function startRedis(name: string, port: number, cluster: boolean): Proc {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'];
  if (cluster) args.push('--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, 'nodes.conf'), '--cluster-node-timeout', '5000');
  return start(name, 'redis-server', args);
}

async function run(redisMode: RedisMode): Promise<void> {
  const missing = preflight();
  if (missing.length > 0) {
    for (const line of describeMissing(missing)) say(line);
    say('nothing was started');
    process.exit(69);
  }
  tmp = mkdtempSync(path.join(tmpdir(), 'rfq-scaled-'));
  chmodSync(tmp, 0o755);
  mkdirSync(path.join(tmp, 'logs'));
  say(`temporary directory ${tmp}`);

  const ports = {
    /** Picked just before Postgres starts, again when another process took one meanwhile. */
    pgPrimary: 0,
    pgReplica: 0,
    redisCluster: [] as number[],
    redisPlain: redisMode === 'plain' ? await freePort() : 0,
    devchain: await freePort(),
    /** Picked just before HAProxy starts, so nothing else takes it meanwhile. */
    haproxy: 0,
    /** Filled in once the replicas listen (they bind a port of the kernel's choosing). */
    api: [] as number[],
    socket: [] as number[],
  };
  for (let i = 0; i < 6; i++) ports.redisCluster.push(await freePort(true));

  say(redisMode === 'cluster' ? 'Redis Cluster (3 masters, 3 replicas)' : 'Redis Cluster (3 masters, 3 replicas) and a plain Redis for the roles');
  const nodes = ports.redisCluster.map((p, i) => startRedis(`redis-cluster-${i + 1}`, p, true));
  if (redisMode === 'plain') startRedis('redis-plain', ports.redisPlain, false);
  const redisPorts = redisMode === 'plain' ? [...ports.redisCluster, ports.redisPlain] : ports.redisCluster;
  await until('the Redis nodes', () => redisPorts.every((p) => redisCli(p, 'ping') === 'PONG'), 60_000);
  const create = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...ports.redisCluster.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
    {
      encoding: 'utf8',
    },
  );
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
  await until('cluster_state:ok on every node', () => ports.redisCluster.every((p) => redisCli(p, 'cluster', 'info').includes('cluster_state:ok')), 60_000);
  void nodes;

  say('Postgres primary and streaming replica');
  postgres = await startPostgresOnFreePorts(tmp, ports);
  const databaseUrl = postgres.url('primary', 'options_rfq');
  const replicaUrl = postgres.url('replica', 'options_rfq');

  say('devchain (creates and migrates the database, deploys, registers network 31337)');
  const devchain = start('devchain', process.execPath, scriptStartArgs('dev/devchain-cli.ts', __filename), {
    DATABASE_URL: databaseUrl,
    DEVCHAIN_PORT: String(ports.devchain),
    LOG_LEVEL: 'warn',
  });
  await until('the devchain', logHas(devchain, 'devchain running on'), 300_000);

  // Every role on the Redis Cluster (seed nodes; REDIS_URL is then only a fallback nobody uses).
  const clusterNodes = ports.redisCluster.map((p) => `127.0.0.1:${p}`).join(',');
  const redisEnv: Record<string, string> =
    redisMode === 'cluster'
      ? { REDIS_CLUSTER_NODES: clusterNodes, REDIS_URL: `redis://127.0.0.1:${ports.redisCluster[0]}` }
      : { REDIS_URL: `redis://127.0.0.1:${ports.redisPlain}` };
  const roleEnv = {
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    DATABASE_REPLICA_URLS: replicaUrl,
    DATABASE_POOL_SIZE: '8',
    DEVCHAIN: 'off',
    MIGRATE_ON_START: 'false',
    SERVICE_SIGNER_KEY: DEVELOPMENT_SERVICE_SIGNER_KEY,
    // Off the devchain every role process would pick its own session secret (issue #38): one for the stack.
    JWT_SECRET: randomBytes(32).toString('hex'),
    REDIS_PREFIX: 'rfq:',
    // At least info, whatever LOG_LEVEL says: the stack reads each replica's port and start from
    // its info lines (`api listening`, `started`); a quieter level would leave it waiting for ever.
    LOG_LEVEL: ['trace', 'debug'].includes(process.env.LOG_LEVEL ?? '') ? process.env.LOG_LEVEL! : 'info',
    ...redisEnv,
  };
  // The API and socket replicas sit behind HAProxy (option forwardfor): the client, for rate
  // limits and idempotency scopes, is the last X-Forwarded-For hop, not HAProxy's address. They
  // listen on a port of the kernel's choosing (PORT=0), read back from their log: a port picked
  // free here could be taken by another process in the minutes before the role binds it.
  const role = (name: string, roles: string, http = false) =>
    start(name, process.execPath, scriptStartArgs('bin/main.ts', __filename), {
      ...roleEnv,
      ROLES: roles,
      PORT: '0',
      ...(http ? { TRUST_PROXY_HOPS: '1' } : {}),
    });

  say('two API, two socket, two worker and two indexer processes');
  const roles = [
    role('api-1', 'api', true),
    role('api-2', 'api', true),
    role('socket-1', 'socket', true),
    role('socket-2', 'socket', true),
    role('workers-1', 'workers'),
    role('workers-2', 'workers'),
    role('indexer-1', 'indexer'),
    role('indexer-2', 'indexer'),
  ];
  await until('every role to start', () => roles.every((r) => readFileSync(r.log, 'utf8').includes('"msg":"started"')), 600_000);
  /** The port a role's log says it listens on (`<role> listening`). */
  const listening = (p: Proc, what: string): number => {
    for (const line of readFileSync(p.log, 'utf8').split('\n')) {
      if (!line.includes(`"msg":"${what} listening"`)) continue;
      const port = (JSON.parse(line) as { port?: unknown }).port;
      if (typeof port === 'number') return port;
    }
    throw new Error(`${p.name} logged no "${what} listening" line with a port`);
  };
  ports.api = roles.slice(0, 2).map((r) => listening(r, 'api'));
  ports.socket = roles.slice(2, 4).map((r) => listening(r, 'socket'));

  say('HAProxy');
  ports.haproxy = await freePort();
  const cfg = path.join(tmp, 'haproxy.cfg');
  writeFileSync(
    cfg,
    haproxyConfig({
      bind: `127.0.0.1:${ports.haproxy}`,
      api: ports.api.map((p, i) => ({ name: `api-${i + 1}`, address: `127.0.0.1:${p}` })),
      socket: ports.socket.map((p, i) => ({ name: `socket-${i + 1}`, address: `127.0.0.1:${p}` })),
    }),
  );
  const check = spawnSync('haproxy', ['-c', '-q', '-f', cfg], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c refused the configuration: ${check.stdout}${check.stderr}`);
  start('haproxy', 'haproxy', ['-db', '-f', cfg]);
  const baseUrl = `http://127.0.0.1:${ports.haproxy}`;
  await until(
    'HAProxy to see every replica ready',
    async () => {
      const served = new Set<string>();
      for (let i = 0; i < 8; i++) {
        const r = await fetch(`${baseUrl}/readyz`);
        if (r.status !== 200) return false;
        served.add(r.headers.get('x-served-by') ?? '');
      }
      return served.size === 2;
    },
    120_000,
  );

  const pids = [...procs.map((p) => p.child.pid).filter((p): p is number => typeof p === 'number'), ...postgres.pids()];
  const processes = Object.fromEntries(procs.map((p) => [p.name, p.child.pid]));
  const [primaryPid, replicaPid] = postgres.pids();
  ready = true;
  // The stack's addresses as a shell file, so `. <file>` points the demos and the operator CLI at
  // this stack (DATABASE_URL must follow BASE_URL: the demos' operator step writes there).
  const envFile = path.join(tmp, 'stack.env');
  writeFileSync(
    envFile,
    [
      `export BASE_URL=${baseUrl}`,
      `export DATABASE_URL=${databaseUrl}`,
      `export RPC_URL=http://127.0.0.1:${ports.devchain}`,
      redisMode === 'cluster' ? `export REDIS_CLUSTER_NODES=${clusterNodes}` : `export REDIS_URL=redis://127.0.0.1:${ports.redisPlain}`,
      '',
    ].join('\n'),
  );
  process.stdout.write(`RFQ scaled stack ready: ${baseUrl}\n`);
  process.stdout.write(`point the demos and the CLI at it: . ${envFile}\n`);
  process.stdout.write(
    `${JSON.stringify({ event: 'ready', base_url: baseUrl, redis: redisMode, redis_cluster_nodes: clusterNodes, database_url: databaseUrl, database_replica_url: replicaUrl, rpc_url: `http://127.0.0.1:${ports.devchain}`, ports, pids, processes, postgres_pids: { primary: primaryPid, replica: replicaPid }, env_file: envFile, tmp })}\n`,
  );
}

/** Stops everything, roles first and storage last, then removes the temporary directory. */
function shutdown(code: number): Promise<void> {
  stopping ??= (async () => {
    say('stopping');
    const order = (p: Proc) => (p.name === 'haproxy' ? 0 : p.name.startsWith('redis') ? 3 : p.name === 'devchain' ? 2 : 1);
    for (const stage of [0, 1, 2, 3]) {
      const group = procs.filter((p) => order(p) === stage && p.child.exitCode === null && p.child.signalCode === null);
      for (const p of group) killGroup(p, 'SIGTERM');
      await Promise.race([Promise.all(group.map((p) => p.exited)), new Promise((r) => setTimeout(r, 30_000).unref())]);
      for (const p of group) killGroup(p, 'SIGKILL');
      await Promise.all(group.map((p) => p.exited));
    }
    await postgres?.stop().catch((err: unknown) => say(`stopping Postgres: ${(err as Error).message}`));
    // The process groups' members too (a Hardhat node under the devchain).
    for (const p of procs) if (p.child.pid) await until(`group ${p.child.pid} to end`, () => !groupAlive(p.child.pid!), 10_000).catch(() => undefined);
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    const left = procs.filter((p) => p.child.pid && groupAlive(p.child.pid)).map((p) => p.name);
    say(left.length === 0 && !existsSync(tmp) ? 'stopped; nothing left behind' : `left behind: ${left.join(', ')}`);
    process.exit(left.length === 0 ? code : 1);
  })();
  return stopping;
}

function killGroup(p: Proc, signal: NodeJS.Signals): void {
  try {
    if (p.child.pid) process.kill(-p.child.pid, signal);
  } catch {
    // already gone
  }
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

let args: { redis: RedisMode };
try {
  args = parseArgs(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(64);
}
run(args.redis).catch((err: unknown) => {
  if (stopping) return;
  say(`failed: ${(err as Error).message}`);
  void shutdown(1);
});
