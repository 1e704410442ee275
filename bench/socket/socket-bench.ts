import { execSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type WebSocket from 'ws';
import { loadConfig } from '../../shared/platform/config';
import { EventPublisher, rfqStreamTopic, topics } from '../../shared/events';
import { closeRedis, createRedis } from '../../shared/platform/redis';
import { hashStreamToken, StreamTokens } from '../../shared/platform/stream-tokens';
import { HeartbeatPacer, joinAll } from './phoenix-clients';
import { benchPrefix, cleanUpBench, runBench, stopOnBenchExit } from '../support/bench-cleanup';

/**
 * Socket tier benchmark (target in docs/PERFORMANCE.md, "Socket tier": 100,000 idle joined connections on one replica at <= 6 KB
 * RSS each, heartbeats under half a core; one publish to 1,000 subscribers of a shared topic).
 *
 * The server is bench/socket/socket-server-child.ts in a child process (RSS measured alone,
 * after GC, before and after the connections). Clients are raw `ws` sockets, each joined to a
 * topic of its own (a taker's `rfq_stream:<token>`: one Redis subscription per connection, the
 * heavier case): BENCH_FANOUT of them in this process, the rest split over client processes
 * (bench/socket/socket-client-child.ts), each under its open-file limit and its source
 * address's ephemeral ports, each from its own loopback address. The replica holds one socket
 * per connection, so its own open-file limit caps the run: when that is below BENCH_CONNECTIONS
 * the bench says so and measures the largest count it allows.
 *
 * Then, in this order: the replica's CPU while the connections are idle; the fan-out (the
 * first BENCH_FANOUT connections also join one shared topic; two latencies, both from the
 * publish call's start: until each client read its frame, and until the server had handed the
 * last subscriber its frame, on the server's epoch clock over IPC); the replica's CPU while
 * every connection sends a phoenix heartbeat every 30 s (phoenix.js's default), spread evenly,
 * and, below 100,000 connections, again at the rate 100,000 of them would send (each of the N
 * beating every 30 s * N / 100,000), which is the heartbeat figure then reported. CPU is the replica's utime + stime from /proc/<pid>/stat over the window, as a fraction of
 * one core. Everything is bounded: counts by env, the whole run by a deadline. 127.0.0.1 (and
 * 127.0.0.x for the client processes) only.
 *
 * Env: BENCH_CONNECTIONS (100000), BENCH_FANOUT (1000), BENCH_PUBLISHES (100),
 * BENCH_PER_CLIENT_PROCESS (15000), BENCH_CPU_WINDOW_MS (30000), BENCH_DEADLINE_MS (900000),
 * and for diagnosis BENCH_SERVER_FLAGS (node flags for the server, e.g. --trace-gc),
 * BENCH_CPU_PROF (a directory for the server's --cpu-prof output) and BENCH_HEAP_SNAPSHOT (a
 * directory for the server's heap snapshots, before and after the connections).
 */
const WANTED = Number(process.env.BENCH_CONNECTIONS ?? 100_000);
const FANOUT = Number(process.env.BENCH_FANOUT ?? 1_000);
const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 100);
const PER_CLIENT_PROCESS = Number(process.env.BENCH_PER_CLIENT_PROCESS ?? 15_000);
const CPU_WINDOW_MS = Number(process.env.BENCH_CPU_WINDOW_MS ?? 30_000);
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_MS ?? 900_000);
const HEAP_SNAPSHOT_DIR = process.env.BENCH_HEAP_SNAPSHOT;
/** phoenix.js's default heartbeatIntervalMs. */
const HEARTBEAT_PERIOD_MS = 30_000;
const TARGET_CONNECTIONS = 100_000;
const CONNECT_BATCH = 250;
/** Descriptors a process keeps for itself (Redis, IPC, stdio, the listener, node's own). */
const FD_RESERVE = 256;

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  connections: number;
}

/** The soft open-file limit of a process, from /proc (the bench runs on Linux). */
function openFileLimit(pid: number | 'self'): number {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = line?.split(/\s{2,}/)[1];
  return soft === undefined || soft === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(soft);
}

/** Ports one source address can connect from to one destination. */
function ephemeralPorts(): number {
  const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  return hi - lo + 1;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execSync('getconf CLK_TCK').toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the fields after the command name, which is in parentheses and may hold spaces
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The process's CPU over `ms` of wall time: seconds used and the fraction of one core. */
async function cpuOver(pid: number, ms: number): Promise<{ seconds: number; core: number }> {
  const c0 = cpuSeconds(pid);
  const t0 = performance.now();
  await sleep(ms);
  const seconds = cpuSeconds(pid) - c0;
  return { seconds, core: seconds / ((performance.now() - t0) / 1000) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

interface Server {
  child: ChildProcess;
  port: number;
  measure: () => Promise<Memory>;
  handedOff: () => Promise<number[]>;
  snapshot: (label: string) => Promise<void>;
}

function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const child = fork(path.join(__dirname, 'socket-server-child.ts'), [], {
    env,
    execArgv: [
      '--expose-gc',
      '--import',
      'tsx',
      ...(process.env.BENCH_SERVER_FLAGS ? process.env.BENCH_SERVER_FLAGS.split(' ') : []),
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  stopOnBenchExit(child, 'socket server');
  const queues = new Map<string, ((m: unknown) => void)[]>();
  const ask = <T>(type: string, message: object) =>
    new Promise<T>((res) => {
      const q = queues.get(type) ?? [];
      queues.set(type, q);
      q.push(res as (m: unknown) => void);
      child.send({ type, ...message });
    });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    child.on('message', (msg: { type: string; port?: number }) => {
      if (msg.type === 'ready') {
        resolve({
          child,
          port: msg.port!,
          measure: () => ask<Memory>('memory', {}),
          handedOff: () => ask<{ at: number[] }>('handed-off', {}).then((m) => m.at),
          snapshot: (label) => ask<void>('snapshot', { dir: HEAP_SNAPSHOT_DIR, label }),
        });
      } else queues.get(msg.type)?.shift()?.(msg);
    });
  });
}

/** A client process holding its share of the connections. */
interface ClientProcess {
  child: ChildProcess;
  ask: <T>(message: { type: string; [k: string]: unknown }, answer: string) => Promise<T>;
}

function startClientProcess(): Promise<ClientProcess> {
  const child = fork(path.join(__dirname, 'socket-client-child.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  stopOnBenchExit(child, 'socket client');
  let pending: { answer: string; resolve: (m: unknown) => void; reject: (e: Error) => void } | null = null;
  child.on('message', (msg: { type: string; error?: string }) => {
    if (!pending) return;
    const p = pending;
    if (msg.type === 'failed') p.reject(new Error(`client process: ${msg.error}`));
    else if (msg.type === p.answer) p.resolve(msg);
    else return;
    pending = null;
  });
  const ask = <T>(message: { type: string; [k: string]: unknown }, answer: string) =>
    new Promise<T>((resolve, reject) => {
      pending = { answer, resolve: resolve as (m: unknown) => void, reject };
      if (message.type !== 'none') child.send(message);
    });
  return ask({ type: 'none' }, 'ready').then(() => ({ child, ask }));
}

/** Nearest-rank percentile of an ascending list. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function mintTokens(tokens: StreamTokens, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1000) out.push(...(await Promise.all(Array.from({ length: Math.min(1000, n - i) }, () => tokens.mint('rfq', 3600)))));
  return out;
}

async function main(): Promise<void> {
  const prefix = benchPrefix('socket');
  const config = loadConfig({ ...process.env, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' });
  const redis = createRedis(config);
  const tokens = new StreamTokens(redis, prefix);
  const server = await startServer({
    ...process.env,
    REDIS_URL: config.REDIS_URL,
    REDIS_PREFIX: prefix,
    // the measurements before the heartbeats start must not lose connections to the idle sweep
    SOCKET_IDLE_TIMEOUT_MS: '3600000',
    // the bench clients come from a handful of loopback addresses
    SOCKET_MAX_CONNECTIONS_PER_IP: String(WANTED + 1000),
    SOCKET_MAX_CONNECTIONS: String(WANTED + 1000),
    LOG_LEVEL: 'warn',
  });
  const serverPid = server.child.pid!;
  const serverFds = openFileLimit(serverPid);
  const connections = Math.min(WANTED, serverFds - FD_RESERVE);
  const limits = `replica open-file limit ${serverFds} (hard ${execSync('ulimit -Hn', { shell: '/bin/sh' }).toString().trim()}), fs.file-max ${readFileSync('/proc/sys/fs/file-max', 'utf8').trim()}, ephemeral ports per source address ${ephemeralPorts()}`;
  process.stdout.write(`${limits}\n`);
  if (connections < WANTED)
    process.stdout.write(
      `note: one replica process can hold at most ${connections} sockets under its open-file limit; running ${connections} connections instead of ${WANTED}\n`,
    );
  const perProcess = Math.min(PER_CLIENT_PROCESS, openFileLimit('self') - FD_RESERVE, ephemeralPorts() - 1000);
  const inParent = Math.min(FANOUT, connections);
  const shares: number[] = [];
  for (let left = connections - inParent; left > 0; left -= perProcess) shares.push(Math.min(perProcess, left));

  const url = `ws://127.0.0.1:${server.port}/socket/websocket?vsn=2.0.0`;
  const sockets: WebSocket[] = [];
  const clients: ClientProcess[] = [];
  const deadline = setTimeout(() => {
    process.stderr.write(`bench: deadline of ${DEADLINE_MS} ms passed, stopping\n`);
    server.child.kill('SIGKILL');
    for (const c of clients) c.child.kill('SIGKILL');
    void cleanUpBench().finally(() => process.exit(2));
  }, DEADLINE_MS);

  try {
    clients.push(...(await Promise.all(shares.map(() => startClientProcess()))));
    // warm-up: code paths compiled and pools sized before the baseline is taken
    const warm = await tokens.mint('rfq', 3600);
    const warmSockets = await joinAll(url, Array(200).fill(rfqStreamTopic(warm)), 200);
    for (const ws of warmSockets) ws.terminate();
    await sleep(500);
    const base = await server.measure();
    if (HEAP_SNAPSHOT_DIR) await server.snapshot('baseline');

    const own = (await mintTokens(tokens, connections)).map((t) => rfqStreamTopic(t));
    const t0 = performance.now();
    let at = inParent;
    const joined = await Promise.all([
      joinAll(url, own.slice(0, inParent), CONNECT_BATCH),
      ...clients.map((c, i) => {
        const mine = own.slice(at, (at += shares[i]));
        // 127.0.0.2, .3, ...: each client process has a source address's ephemeral ports to itself
        return c.ask<{ count: number }>({ type: 'join', url, topics: mine, localAddress: `127.0.0.${i + 2}`, batch: CONNECT_BATCH }, 'joined');
      }),
    ]);
    const connectMs = performance.now() - t0;
    sockets.push(...(joined[0] as WebSocket[]));
    await sleep(1000);
    const loaded = await server.measure();
    if (loaded.connections !== connections) throw new Error(`server counts ${loaded.connections} connections, expected ${connections}`);
    if (HEAP_SNAPSHOT_DIR) await server.snapshot('loaded');
    const loadAtMemory = loadAverage();

    // the replica with every connection idle: the sweeps and nothing else
    const idle = await cpuOver(serverPid, Math.min(CPU_WINDOW_MS, 10_000));

    // fan-out: the first FANOUT connections also join one shared topic
    const shared = await tokens.mint('rfq', 3600);
    const sharedTopic = rfqStreamTopic(shared);
    const subscribers = sockets.slice(0, Math.min(FANOUT, sockets.length));
    const sentAt: number[] = [];
    const sentAtEpoch: number[] = [];
    const latencies: number[] = [];
    const lastArrival: number[] = [];
    let received = 0;
    await Promise.all(
      subscribers.map(
        (ws) =>
          new Promise<void>((resolve, reject) => {
            ws.on('message', (data) => {
              const arrived = performance.now();
              // the client's own work is kept small (no JSON.parse per frame) so the figure is the server's
              const text = String(data);
              if (text.includes('"phx_reply"') && text.includes(sharedTopic)) return text.includes('"status":"ok"') ? resolve() : reject(new Error(text));
              const m = /"i":(\d+)\}\]$/.exec(text);
              if (!m || !text.includes(sharedTopic)) return;
              const i = Number(m[1]);
              const ms = arrived - sentAt[i];
              latencies.push(ms);
              lastArrival[i] = Math.max(lastArrival[i] ?? 0, ms);
              received++;
            });
            ws.send(JSON.stringify(['2', '2', sharedTopic, 'phx_join', {}]));
          }),
      ),
    );
    const pub = new EventPublisher({ redis, config });
    const ref = topics.rfqStream(hashStreamToken(shared));
    const publishMs: number[] = [];
    for (let i = 0; i < PUBLISHES; i++) {
      const want = (i + 1) * subscribers.length;
      sentAt[i] = performance.now();
      sentAtEpoch[i] = performance.timeOrigin + sentAt[i];
      await pub.publish(ref, 'rfq_offer', { quote_id: 'bench', i });
      publishMs.push(performance.now() - sentAt[i]);
      const until = Date.now() + 5000;
      while (received < want && Date.now() < until) await new Promise((r) => setImmediate(r));
      await sleep(10);
    }
    const handedOff = await server.handedOff();
    const loadAtFanout = loadAverage();

    // heartbeats: every connection once per 30 s, spread evenly, from every client process
    const pacer = new HeartbeatPacer(sockets);
    const heartbeatWindow = async (periodMs: number) => {
      pacer.start(periodMs);
      for (const c of clients) c.child.send({ type: 'heartbeats', periodMs });
      const cpu = await cpuOver(serverPid, CPU_WINDOW_MS);
      pacer.stop();
      const counts = await Promise.all(clients.map((c) => c.ask<{ sent: number; replies: number }>({ type: 'heartbeat-count' }, 'heartbeat-count')));
      const sent = counts.reduce((n, c) => n + c.sent, pacer.sent);
      const replies = counts.reduce((n, c) => n + c.replies, pacer.replies);
      // what one heartbeat costs the replica beyond idling
      const perHeartbeatUs = sent > 0 ? (((cpu.core - idle.core) * CPU_WINDOW_MS) / 1000 / sent) * 1e6 : 0;
      return { periodMs, cpu, sent, replies, perHeartbeatUs, load: loadAverage() };
    };
    const beating = await heartbeatWindow(HEARTBEAT_PERIOD_MS);
    // below the target count, the target's heartbeat rate from the connections there are:
    // 100,000 connections every 30 s is 3,333 a second, so N connections every 30 s * N / 100,000
    const atTargetRate = connections < TARGET_CONNECTIONS ? await heartbeatWindow(Math.round((HEARTBEAT_PERIOD_MS * connections) / TARGET_CONNECTIONS)) : null;

    const serverMs = handedOff.map((t, i) => t - sentAtEpoch[i]).sort((a, b) => a - b);
    const sorted = [...latencies].sort((a, b) => a - b);
    const whole = lastArrival.filter((v) => v !== undefined).sort((a, b) => a - b);
    const perConn = (loaded.rss - base.rss) / connections;
    const coreAtTarget = (atTargetRate ?? beating).cpu.core;
    const heartbeatReport = (w: typeof beating) => ({
      period_s: w.periodMs / 1000,
      per_second: Math.round(w.sent / (CPU_WINDOW_MS / 1000)),
      sent_answered: `${w.sent}/${w.replies}`,
      replica_core: Number(w.cpu.core.toFixed(4)),
      cpu_per_heartbeat_us: Number(w.perHeartbeatUs.toFixed(1)),
      load_average: w.load,
    });
    const fmt = (n: number) => n.toFixed(2);
    const report = {
      machine: `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      limits,
      connections,
      client_processes: `${clients.length} (+ ${inParent} connections in the bench process)`,
      connect_and_join_s: Number((connectMs / 1000).toFixed(1)),
      rss_baseline_mb: Number((base.rss / 2 ** 20).toFixed(1)),
      rss_loaded_mb: Number((loaded.rss / 2 ** 20).toFixed(1)),
      rss_per_connection_kb: Number((perConn / 1024).toFixed(2)),
      heap_per_connection_kb: Number(((loaded.heapUsed - base.heapUsed) / connections / 1024).toFixed(2)),
      load_average_at_memory: loadAtMemory,
      idle_cpu_core: Number(idle.core.toFixed(4)),
      heartbeat_window_s: CPU_WINDOW_MS / 1000,
      heartbeats_every_30s: heartbeatReport(beating),
      ...(atTargetRate ? { heartbeats_at_the_rate_of_100k: heartbeatReport(atTargetRate) } : {}),
      heartbeat_cpu_core_at_100k: Number(coreAtTarget.toFixed(3)),
      fanout_subscribers: subscribers.length,
      publishes: PUBLISHES,
      deliveries: `${latencies.length}/${PUBLISHES * subscribers.length}`,
      server_handoff_all_subscribers_ms: {
        p50: fmt(percentile(serverMs, 50)),
        p90: fmt(percentile(serverMs, 90)),
        p99: fmt(percentile(serverMs, 99)),
        max: fmt(serverMs[serverMs.length - 1]),
        over_25ms: `${serverMs.filter((v) => v >= 25).length}/${serverMs.length}`,
      },
      client_received_ms: {
        p50: fmt(percentile(sorted, 50)),
        p90: fmt(percentile(sorted, 90)),
        p99: fmt(percentile(sorted, 99)),
        max: fmt(sorted[sorted.length - 1]),
      },
      client_last_subscriber_ms: { p50: fmt(percentile(whole, 50)), p99: fmt(percentile(whole, 99)) },
      publish_call_ms_p50: fmt(
        percentile(
          [...publishMs].sort((a, b) => a - b),
          50,
        ),
      ),
      load_average_at_fanout: loadAtFanout,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const scaled = atTargetRate ? ` (${connections} connections each beating every ${atTargetRate.periodMs / 1000} s: ${TARGET_CONNECTIONS}'s rate)` : '';
    const verdict = [
      `RSS per connection ${report.rss_per_connection_kb} KB at ${connections} connections (target <= 6 KB at ${TARGET_CONNECTIONS}): ${report.rss_per_connection_kb <= 6 ? 'PASS' : 'FAIL'}${connections < TARGET_CONNECTIONS ? ' (count not reached on this machine)' : ''}`,
      `heartbeats: ${report.heartbeat_cpu_core_at_100k} of a core at the heartbeat rate of ${TARGET_CONNECTIONS} connections${scaled} (target < 0.5): ${report.heartbeat_cpu_core_at_100k < 0.5 ? 'PASS' : 'FAIL'}`,
      `fan-out p99 ${report.client_received_ms.p99} ms to ${subscribers.length} subscribers, as received by the clients`,
      `  server side: every subscriber's frame handed to the kernel within ${report.server_handoff_all_subscribers_ms.p99} ms at p99`,
    ];
    process.stdout.write(`${verdict.join('\n')}\n`);
  } finally {
    clearTimeout(deadline);
    for (const ws of sockets) ws.terminate();
    for (const c of clients) c.child.send({ type: 'stop' });
    server.child.send({ type: 'stop' });
    await new Promise((r) => server.child.once('exit', r));
    await closeRedis(redis);
  }
}

runBench(main);
