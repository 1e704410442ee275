import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitForPing } from './redis-ping';
import { runTempDir } from './run-temp-dir';

const run = promisify(execFile);

/**
 * A real Redis Cluster on this machine's `redis-server` and `redis-cli` binaries: `masters`
 * masters with `replicasPerMaster` replicas each, on free 127.0.0.1 ports, in a temporary
 * directory, without persistence. Nothing here depends on jest, so a script that starts a
 * scaled topology can use it as the tests do.
 *
 * Ports: a cluster node also listens on its port + 10000 (the cluster bus), so a node's port is
 * picked in 15000-22767 with both it and its bus port free; the bus ports then stay below Linux's
 * ephemeral range (32768 and up), where an outgoing connection could take them meanwhile.
 */
export interface TestRedisCluster {
  /** Every node, masters first (as created: the first `masters` ports got the slots). */
  nodes: ClusterNodeProcess[];
  /** `127.0.0.1:P1,127.0.0.1:P2,...` of the masters: a REDIS_CLUSTER_NODES value. */
  nodesEnv: string;
  /** `redis+cluster://127.0.0.1:P1,...`: a REDIS_URL value naming the same cluster. */
  url: string;
  /** Kills every node and removes the temporary directory. */
  close(): Promise<void>;
}

export interface ClusterNodeProcess {
  port: number;
  /** Stops this node (SIGKILL by default: a crash); `close()` stops the others. */
  kill(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** SIGSTOP: the node reads nothing, its replication link included, until `resume`. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
}

export interface RedisClusterOptions {
  masters?: number;
  replicasPerMaster?: number;
  /** cluster-node-timeout, ms: how long a master may be unreachable before its replica takes over. */
  nodeTimeoutMs?: number;
  /** Longest wait for the cluster to form (every node reports cluster_state:ok). */
  readyTimeoutMs?: number;
}

export async function startRedisCluster(opts: RedisClusterOptions = {}): Promise<TestRedisCluster> {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicasPerMaster ?? 0;
  if (masters < 3) throw new Error('a Redis Cluster needs at least 3 masters');
  const total = masters * (1 + replicas);
  const dir = runTempDir('redis-cluster');
  const children: ChildProcess[] = [];
  const killAll = () => {
    for (const c of children) {
      c.kill('SIGCONT');
      c.kill('SIGKILL');
    }
  };
  process.on('exit', killAll);

  const close = async () => {
    await Promise.all(children.map((c) => stopChild(c, 'SIGKILL')));
    process.removeListener('exit', killAll);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const ports = await freeClusterPorts(total);
    const nodes: ClusterNodeProcess[] = [];
    const answering: Promise<void>[] = [];
    // Every node starts at once; the cluster is created once all of them answer PING.
    for (const port of ports) {
      const nodeDir = path.join(dir, String(port));
      mkdirSync(nodeDir);
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          path.join(nodeDir, 'nodes.conf'),
          '--cluster-node-timeout',
          String(opts.nodeTimeoutMs ?? 2000),
          '--dir',
          nodeDir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--daemonize',
          'no',
          '--logfile',
          '',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      children.push(child);
      nodes.push({ port, kill: (signal = 'SIGKILL') => stopChild(child, signal), pause: () => child.kill('SIGSTOP'), resume: () => child.kill('SIGCONT') });
      answering.push(waitForPing(port, child, () => stderr, 30_000));
    }
    await Promise.all(answering);

    // --cluster-replicas r: redis-cli makes the first `masters` addresses masters and the rest their replicas.
    const addresses = ports.map((p) => `127.0.0.1:${p}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: 60_000 });
    await waitForClusterOk(ports, total, opts.readyTimeoutMs ?? 30_000);

    const seeds = addresses.slice(0, masters);
    return { nodes, nodesEnv: seeds.join(','), url: `redis+cluster://${seeds.join(',')}`, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Every node says cluster_state:ok and knows all the others: the slot map has spread. */
async function waitForClusterOk(ports: number[], total: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < until) {
    const infos = await Promise.all(ports.map((p) => clusterInfo(p)));
    const ok = infos.every((i) => i.get('cluster_state') === 'ok' && Number(i.get('cluster_known_nodes')) === total && i.get('cluster_slots_ok') === '16384');
    if (ok) return;
    last = infos.map((i, n) => `${ports[n]}: ${i.get('cluster_state')} known=${i.get('cluster_known_nodes')}`).join('; ');
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the Redis Cluster did not form within ${timeoutMs} ms (${last})`);
}

async function clusterInfo(port: number): Promise<Map<string, string>> {
  try {
    const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info'], { timeout: 5000 });
    return new Map(
      stdout
        .split(/\r?\n/)
        .filter((l) => l.includes(':'))
        .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
    );
  } catch {
    return new Map();
  }
}

async function stopChild(c: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
  c.kill('SIGCONT');
  c.kill(signal);
  await exited;
}

/** `count` ports in 15000-22767 whose port and bus port (+10000) both accept a listener right now. */
async function freeClusterPorts(count: number): Promise<number[]> {
  const out: number[] = [];
  for (let tries = 0; out.length < count; tries++) {
    if (tries > 2000) throw new Error('no free port pair for a Redis Cluster node');
    const port = 15000 + randomInt(7768);
    if (out.includes(port) || out.includes(port + 10000) || out.includes(port - 10000)) continue;
    if ((await canListen(port)) && (await canListen(port + 10000))) out.push(port);
  }
  return out;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
