import { execSync, fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { loadConfig } from '../../shared/platform/config';
import { EventPublisher, rfqStreamTopic, topics } from '../../shared/events';
import { closeRedis, createRedis, type Redis } from '../../shared/platform/redis';
import { hashStreamToken, StreamTokens } from '../../shared/platform/stream-tokens';

/**
 * Socket tier benchmark (DESIGN.md: 10,000 idle joined connections at <= 16 KB RSS each;
 * one publish to 1,000 subscribers delivered with p99 < 25 ms).
 *
 * The server is bench/socket/socket-server-child.ts in a child process (RSS measured alone,
 * after GC, before and after the connections). Clients are raw `ws` sockets in this process,
 * each joined to a topic of its own (a taker's `rfq_stream:<token>`: one Redis subscription
 * per connection, the heavier case); the first 1,000 also join one shared topic for the
 * fan-out. Two latencies, both from the publish call's start: until each client read its frame
 * (same clock; includes this process reading 1,000 sockets on the same cores), and until the
 * server had handed the last subscriber its frame (the server's epoch clock, reported over IPC).
 * Everything is bounded: counts by env, the whole run by a deadline. 127.0.0.1 only.
 *
 * Env: BENCH_CONNECTIONS (10000), BENCH_FANOUT (1000), BENCH_PUBLISHES (100), BENCH_DEADLINE_MS,
 * and for diagnosis BENCH_SERVER_FLAGS (node flags for the server, e.g. --trace-gc) and
 * BENCH_CPU_PROF (a directory for the server's --cpu-prof output).
 */
const WANTED = Number(process.env.BENCH_CONNECTIONS ?? 10_000);
const FANOUT = Number(process.env.BENCH_FANOUT ?? 1_000);
const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 100);
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_MS ?? 300_000);
const CONNECT_BATCH = 250;

interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  connections: number;
}

function fdLimit(): number {
  try {
    return Number(execSync('ulimit -n', { shell: '/bin/sh' }).toString().trim()) || 1024;
  } catch {
    return 1024;
  }
}

interface Server {
  child: ChildProcess;
  port: number;
  measure: () => Promise<Memory>;
  handedOff: () => Promise<number[]>;
}

function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const child = fork(path.join(__dirname, 'socket-server-child.ts'), [], {
    env,
    execArgv: ['--expose-gc', '--import', 'tsx', ...(process.env.BENCH_SERVER_FLAGS ? process.env.BENCH_SERVER_FLAGS.split(' ') : []), ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting: ((m: Memory) => void)[] = [];
  const waitingHandOff: ((at: number[]) => void)[] = [];
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    child.on('message', (msg: { type: string; port?: number; at?: number[] } & Memory) => {
      if (msg.type === 'ready') {
        const measure = () =>
          new Promise<Memory>((res) => {
            waiting.push(res);
            child.send({ type: 'measure' });
          });
        const handedOff = () =>
          new Promise<number[]>((res) => {
            waitingHandOff.push(res);
            child.send({ type: 'handed-off' });
          });
        resolve({ child, port: msg.port!, measure, handedOff });
      } else if (msg.type === 'memory') waiting.shift()?.(msg);
      else if (msg.type === 'handed-off') waitingHandOff.shift()?.(msg.at!);
    });
  });
}

/** Opens a connection and joins `topic`; resolves with the socket once the join is answered ok. */
function joinOne(url: string, topic: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const timer = setTimeout(() => reject(new Error('join timed out')), 30_000);
    ws.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    ws.once('open', () => ws.send(JSON.stringify(['1', '1', topic, 'phx_join', {}])));
    ws.once('message', (data) => {
      clearTimeout(timer);
      const m = JSON.parse(String(data)) as [unknown, unknown, string, string, { status: string }];
      if (m[3] === 'phx_reply' && m[4].status === 'ok') resolve(ws);
      else reject(new Error(`join refused: ${String(data)}`));
    });
  });
}

/** Nearest-rank percentile of an ascending list. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

async function main(): Promise<void> {
  const limit = fdLimit();
  const connections = Math.min(WANTED, limit - 256);
  if (connections < WANTED) process.stdout.write(`note: open-file limit ${limit}; running ${connections} connections instead of ${WANTED}\n`);
  const prefix = `bench:socket:${process.pid}:`;
  const config = loadConfig({ ...process.env, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' });
  const redis = createRedis(config.REDIS_URL);
  const tokens = new StreamTokens(redis, prefix);
  const server = await startServer({
    ...process.env,
    REDIS_URL: config.REDIS_URL,
    REDIS_PREFIX: prefix,
    // idle connections are the point here; the phoenix heartbeat is not
    SOCKET_IDLE_TIMEOUT_MS: '3600000',
    // every bench client comes from 127.0.0.1
    SOCKET_MAX_CONNECTIONS_PER_IP: String(connections + 1000),
    SOCKET_MAX_CONNECTIONS: String(connections + 1000),
    LOG_LEVEL: 'warn',
  });
  const url = `ws://127.0.0.1:${server.port}/socket/websocket?vsn=2.0.0`;
  const sockets: WebSocket[] = [];
  const deadline = setTimeout(() => {
    process.stderr.write(`bench: deadline of ${DEADLINE_MS} ms passed, stopping\n`);
    server.child.kill('SIGKILL');
    process.exit(2);
  }, DEADLINE_MS);

  try {
    // warm-up: code paths compiled and pools sized before the baseline is taken
    const warm = await tokens.mint('rfq', 3600);
    const warmSockets = await Promise.all(Array.from({ length: 200 }, () => joinOne(url, rfqStreamTopic(warm))));
    for (const ws of warmSockets) ws.terminate();
    await new Promise((r) => setTimeout(r, 500));
    const base = await server.measure();

    const own: string[] = [];
    for (let i = 0; i < connections; i += 1000) {
      own.push(...(await Promise.all(Array.from({ length: Math.min(1000, connections - i) }, () => tokens.mint('rfq', 3600)))));
    }
    const t0 = performance.now();
    for (let i = 0; i < connections; i += CONNECT_BATCH) {
      const batch = own.slice(i, i + CONNECT_BATCH);
      sockets.push(...(await Promise.all(batch.map((t) => joinOne(url, rfqStreamTopic(t))))));
    }
    const connectMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 1000));
    const loaded = await server.measure();
    if (loaded.connections !== connections) throw new Error(`server counts ${loaded.connections} connections, expected ${connections}`);

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
              const at = performance.now();
              // the client's own work is kept small (no JSON.parse per frame) so the figure is the server's
              const text = String(data);
              if (text.includes('"phx_reply"')) return text.includes('"status":"ok"') ? resolve() : reject(new Error(text));
              const m = /"i":(\d+)\}\]$/.exec(text);
              if (!m || !text.includes(sharedTopic)) return;
              const i = Number(m[1]);
              const ms = at - sentAt[i];
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
      await new Promise((r) => setTimeout(r, 10));
    }

    const handedOff = await server.handedOff();
    const serverMs = handedOff.map((at, i) => at - sentAtEpoch[i]).sort((a, b) => a - b);
    const sorted = [...latencies].sort((a, b) => a - b);
    const whole = lastArrival.filter((v) => v !== undefined).sort((a, b) => a - b);
    const perConn = (loaded.rss - base.rss) / connections;
    const fmt = (n: number) => n.toFixed(2);
    const report = {
      machine: `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
      connections,
      connect_and_join_s: Number((connectMs / 1000).toFixed(1)),
      rss_baseline_mb: Number((base.rss / 2 ** 20).toFixed(1)),
      rss_loaded_mb: Number((loaded.rss / 2 ** 20).toFixed(1)),
      rss_per_connection_kb: Number((perConn / 1024).toFixed(2)),
      heap_per_connection_kb: Number(((loaded.heapUsed - base.heapUsed) / connections / 1024).toFixed(2)),
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
      client_received_ms: { p50: fmt(percentile(sorted, 50)), p90: fmt(percentile(sorted, 90)), p99: fmt(percentile(sorted, 99)), max: fmt(sorted[sorted.length - 1]) },
      client_last_subscriber_ms: { p50: fmt(percentile(whole, 50)), p99: fmt(percentile(whole, 99)) },
      publish_call_ms_p50: fmt(percentile([...publishMs].sort((a, b) => a - b), 50)),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const verdict = [
      `RSS per connection ${report.rss_per_connection_kb} KB (target <= 16 KB): ${report.rss_per_connection_kb <= 16 ? 'PASS' : 'FAIL'}`,
      `fan-out p99 ${report.client_received_ms.p99} ms to ${subscribers.length} subscribers, as received by the clients (target < 25 ms): ${Number(report.client_received_ms.p99) < 25 ? 'PASS' : 'FAIL'}`,
      `  server side: every subscriber's frame handed to the kernel within ${report.server_handoff_all_subscribers_ms.p99} ms at p99`,
    ];
    process.stdout.write(`${verdict.join('\n')}\n`);
  } finally {
    clearTimeout(deadline);
    for (const ws of sockets) ws.terminate();
    server.child.send({ type: 'stop' });
    await new Promise((r) => server.child.once('exit', r));
    await deleteKeys(redis, prefix);
    await closeRedis(redis);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
