import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import IORedis from 'ioredis';
import { dropDatabase, templateName, withAdmin } from './test-db';

/**
 * What a test run left behind, found by the run's id (RFQ_TEST_RUN_ID): the global teardown
 * counts it, cleans it up and fails the run on any (docs/TESTING.md, "What every run checks beyond the tests").
 *
 * - processes: every process whose environment or command line names the run (the id itself,
 *   its databases `rfq_t_<run>_*` or its Redis prefix `t:<run>:`), or that runs in a folder
 *   named after it (runTempDir): what the test files spawned (redis-server, Hardhat nodes,
 *   service roles, the ops CLI, PgBouncer...) inherits the id, or is handed a database, a
 *   prefix or a folder of the run;
 * - databases `rfq_t_<run>_*` other than the run's template;
 * - Redis keys under `t:<run>:` in any logical database of the test Redis.
 */
export interface LeftProcess {
  pid: number;
  kind: string;
  command: string;
}

/** The processes of the run still alive, other than this one and its ancestors (jest, npm) and jest's own workers. */
export function runProcesses(run: string): LeftProcess[] {
  const spared = ancestry(process.pid);
  const marks = [`RFQ_TEST_RUN_ID=${run}`, `rfq_t_${run}_`, `t:${run}:`];
  const out: LeftProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || spared.has(Number(entry))) continue;
    const environ = read(`/proc/${entry}/environ`);
    const command = read(`/proc/${entry}/cmdline`).split('\0').join(' ').trim();
    if (environ === '' && command === '') continue;
    // A redis-server overwrites its command line and environment: its folder (runTempDir) names the run.
    if (!marks.some((m) => environ.includes(m) || command.includes(m)) && !cwdOf(Number(entry)).includes(run)) continue;
    if (command.includes('jest-worker') || state(Number(entry)) === 'Z') continue;
    out.push({ pid: Number(entry), kind: kindOf(command), command: command.slice(0, 200) });
  }
  return out;
}

/** Waits up to `ms` for the run's processes to end (a closed server takes a moment; a Hardhat node ends with its worker). */
export async function runProcessesAfter(run: string, ms: number): Promise<LeftProcess[]> {
  const until = Date.now() + ms;
  let left = runProcesses(run);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    left = runProcesses(run);
  }
  return left;
}

export function killProcesses(left: LeftProcess[]): void {
  for (const p of left) {
    for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(p.pid, signal);
      } catch {
        // ended meanwhile
      }
    }
  }
}

/** The run's databases other than its template; `drop` drops every database of the run, the template included. */
export async function runDatabases(run: string, opts: { drop: boolean }): Promise<string[]> {
  return withAdmin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY 1`, [`rfq\\_t\\_${run}\\_%`]);
    if (opts.drop) for (const r of rows) await dropDatabase(c, r.datname);
    return rows.map((r) => r.datname).filter((name) => name !== templateName(run));
  });
}

/** Keys under the run's prefix, by logical database (`db0`: [...]); `unlink` deletes them. */
export async function runKeys(run: string, redisUrl: string, opts: { unlink: boolean }): Promise<Map<string, string[]>> {
  const redis = new IORedis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const dbs = [...(await redis.info('keyspace')).matchAll(/^db(\d+):/gm)].map((m) => Number(m[1]));
    const out = new Map<string, string[]>();
    for (const db of dbs) {
      await redis.select(db);
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', `t:${run}:*`, 'COUNT', 1000);
        cursor = next;
        keys.push(...batch);
        if (opts.unlink && batch.length > 0) await redis.unlink(...batch);
      } while (cursor !== '0');
      if (keys.length > 0) out.set(`db${db}`, keys);
    }
    return out;
  } finally {
    redis.disconnect();
  }
}

/** A jest worker that was still running when jest ended it, and what held it (test/support/jest-environment.js). */
export interface HeldWorker {
  pid: number;
  worker?: string;
  resources: string[];
  handles: string[];
}

/**
 * The workers of the run that jest had to end ("A worker process has failed to exit gracefully")
 * while their JavaScript still ran, each with what held its event loop: the reports they wrote
 * on jest's SIGTERM. `remove` deletes the reports.
 */
export function heldWorkers(run: string, opts: { remove: boolean }): HeldWorker[] {
  const prefix = `rfq-held-worker-${run}-`;
  let names: string[];
  try {
    names = readdirSync(os.tmpdir()).filter((n) => n.startsWith(prefix) && n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: HeldWorker[] = [];
  for (const name of names) {
    const file = path.join(os.tmpdir(), name);
    try {
      out.push(JSON.parse(readFileSync(file, 'utf8')) as HeldWorker);
    } catch {
      out.push({ pid: Number(name.slice(prefix.length, -'.json'.length)), resources: [], handles: ['(its report could not be read)'] });
    }
    if (opts.remove) rmSync(file, { force: true });
  }
  return out;
}

function kindOf(command: string): string {
  if (command.includes('redis-server')) return 'redis-server';
  if (command.includes('hardhat')) return 'Hardhat node';
  if (/bin\/main\.(ts|js)/.test(command)) return 'service role';
  if (/bin\/ops\.(ts|js)/.test(command)) return 'ops CLI';
  for (const name of ['pgbouncer', 'haproxy', 'chromium']) if (command.includes(name)) return name;
  return 'process';
}

function ancestry(pid: number): Set<number> {
  const out = new Set<number>();
  for (let p = pid; p > 1 && !out.has(p); p = parentOf(p)) out.add(p);
  return out;
}

function parentOf(pid: number): number {
  // /proc/<pid>/stat: "<pid> (<comm>) <state> <ppid> ..."; comm may hold spaces and parentheses.
  const stat = read(`/proc/${pid}/stat`);
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? 0);
}

function state(pid: number): string {
  const stat = read(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '';
}

function cwdOf(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return '';
  }
}

function read(file: string): string {
  try {
    return readFileSync(file, 'latin1');
  } catch {
    return '';
  }
}
