import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RfqClient as ApiClient } from '../../client/src';
import { percentile } from '../support/bench-db';
import { spawnServer } from '../support/spawn-server';
import { PhoenixConnection } from '../support/phoenix-connection';
import { benchServiceEnv } from '../support/service-env';
import { oneLegQuoteBody, quoteBenchDatabase } from './quote-fixture';
import { startOtlpReceiver } from '../../test/support/otlp-receiver';
import { fanoutStageTable, quoteTraces } from './fanout-trace';
import { runBench, stopChild } from '../support/bench-cleanup';

const MAKERS = Number(process.env.BENCH_MAKERS ?? 500);
const QUOTES = Number(process.env.BENCH_QUOTES ?? 100);
const DEADLINE_MS = 5 * 60_000;
// BENCH_TRACE=1: the service exports its spans to a collector in this process, and the run ends
// with each stage from the 201 to the makers split out (bench/quote/fanout-trace.ts). Tracing costs
// a little itself: runs that record the figure leave it off.
const TRACE = process.env.BENCH_TRACE === '1';
// The exporter sends spans in batches every few seconds: wait that long after the load for the last.
const TRACE_FLUSH_MS = 8000;
// BENCH_SOCKET_PROCESS=1: the socket tier in a process of its own (ROLES=socket), the API and the
// workers in another, as an operator scales them; by default all three share one process.
const SOCKET_PROCESS = process.env.BENCH_SOCKET_PROCESS === '1';

/** One maker: signs in, registers freemium for the chain, joins the feed over a raw Phoenix v2 socket. */
async function maker(api: ApiClient, socketUrl: string, onRequest: (quoteId: string, at: number) => void): Promise<PhoenixConnection> {
  const token = (await api.signIn(privateKeyToAccount(generatePrivateKey()))).token;
  await api.call('POST', '/api/pubsub/freemium', { chain_id: 31337 }, { authorization: `Bearer ${token}` });
  const conn = await PhoenixConnection.open(socketUrl, (_topic, event, payload, at) => {
    if (event === 'rfq_request') onRequest(String(payload.quote_id), at);
  });
  await conn.join('quotes:31337:requests', { token });
  return conn;
}

/** 201-to-rfq_request latency at N joined makers: API, socket and workers in one child process. */
export async function fanout(): Promise<void> {
  const db = await quoteBenchDatabase('fanout');
  const collector = TRACE ? await startOtlpReceiver() : null;
  const env = benchServiceEnv({
    roles: SOCKET_PROCESS ? 'api,workers' : 'api,socket,workers',
    databaseUrl: db.url,
    tag: 'fanout',
    extra: {
      NONCE_RATE_LIMIT: '100000',
      LOGIN_RATE_LIMIT: '100000',
      // every bench maker connects from 127.0.0.1
      SOCKET_MAX_CONNECTIONS_PER_IP: String(MAKERS + 100),
      ...(collector ? { TRACING_OTLP_URL: collector.url } : {}),
    },
  });
  const { child, port: listening } = spawnServer('bin/main.ts', env, 'api listening');
  // The same secrets, database and Redis prefix: one deployment in two processes.
  const socketTier = SOCKET_PROCESS ? spawnServer('bin/main.ts', { ...env, ROLES: 'socket' }, 'socket listening') : null;
  const killer = setTimeout(() => {
    child.kill('SIGKILL');
    socketTier?.child.kill('SIGKILL');
  }, DEADLINE_MS).unref();
  const sockets: PhoenixConnection[] = [];
  try {
    const port = await listening;
    const api = new ApiClient(`http://127.0.0.1:${port}`);
    const socketUrl = socketTier ? new ApiClient(`http://127.0.0.1:${await socketTier.port}`).socketUrl : api.socketUrl;
    const arrivals = new Map<string, number[]>();
    const onRequest = (id: string, at: number) => {
      const list = arrivals.get(id);
      if (list) list.push(at);
      else arrivals.set(id, [at]);
    };
    for (let i = 0; i < MAKERS; i += 50) {
      sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, MAKERS - i) }, () => maker(api, socketUrl, onRequest)))));
    }
    const body = oneLegQuoteBody('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    const latencies: number[] = [];
    const fromSent: number[] = [];
    let beforeAnswer = 0;
    let complete = 0;
    // Each quote's makers' arrival times on the epoch clock the spans use, in the order the quotes were sent.
    const arrivalsInOrder: number[][] = [];
    for (let q = 0; q < QUOTES; q++) {
      const sent = performance.now();
      const created = await api.call<{ quote: { id: string } }>('POST', '/api/quote', body);
      const t201 = performance.now();
      const until = Date.now() + 5000;
      while ((arrivals.get(created.quote.id)?.length ?? 0) < MAKERS && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
      const got = arrivals.get(created.quote.id) ?? [];
      if (got.length === MAKERS) complete++;
      arrivalsInOrder.push(got.map((at) => performance.timeOrigin + at));
      for (const at of got) {
        // A maker may hear the quote before the taker's client has read its 201: counted, and as 0.
        if (at < t201) beforeAnswer++;
        latencies.push(Math.max(0, at - t201));
        fromSent.push(at - sent);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    process.stdout.write(
      `\nfan-out${SOCKET_PROCESS ? ' (socket tier in its own process)' : ''}: ${MAKERS} joined makers, ${QUOTES} quotes, ${latencies.length} deliveries (${complete}/${QUOTES} quotes reached every maker)\n`,
    );
    const line = (xs: number[]) =>
      `p50 ${percentile(xs, 50).toFixed(1)} ms   p99 ${percentile(xs, 99).toFixed(1)} ms   max ${percentile(xs, 100).toFixed(1)} ms`;
    process.stdout.write(`201 -> rfq_request   ${line(latencies)}   target p99 < 15 ms (${beforeAnswer} deliveries arrived before the 201 was read)\n`);
    process.stdout.write(`sent -> rfq_request  ${line(fromSent)}   target p99 < 40 ms\n`);
    if (collector) {
      await new Promise((r) => setTimeout(r, TRACE_FLUSH_MS));
      process.stdout.write(
        `\nwhere a quote's way to the makers goes, from the service's own spans (BENCH_TRACE=1):\n${fanoutStageTable(quoteTraces(collector.spans, arrivalsInOrder))}`,
      );
    }
  } finally {
    await collector?.close();
    for (const s of sockets) s.close();
    await Promise.all([stopChild(child), socketTier && stopChild(socketTier.child)]);
    clearTimeout(killer);
    await db.drop();
  }
}

if (require.main === module) {
  runBench(fanout);
}
