import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RfqClient, signPackageOffer, type MakerRfqRequest } from '../../client/src';
import { createDataSource } from '../../shared/entities';
import { OrganizationService } from '../../shared/identity';
import { NetworksService } from '../../shared/networks';
import { benchDatabase, percentile } from '../support/bench-db';
import { spawnServer } from '../support/spawn-server';
import { BENCH_PAIR, oneLegQuoteBody } from '../quote/quote-fixture';
import { PhoenixConnection } from '../support/phoenix-connection';
import { benchServiceEnv } from '../support/service-env';
import { startOtlpReceiver } from '../../test/support/otlp-receiver';
import { offerTraces, stageTable } from './offer-trace';
import { runBench, stopChild } from '../support/bench-cleanup';

/**
 * bench:offer: how long a maker's signed offer takes to reach the taker. At RATE quotes a
 * second, each answered by one maker with an EIP-712-signed package offer PRICING_MS after its
 * rfq_request arrives, one quote in WATCH_EVERY is watched by its taker on its `rfq_stream`
 * topic; the figure is the time from the moment the maker starts writing the offer's POST to the
 * moment the taker's socket reads the `rfq_offer`. API, socket tier and workers run in one
 * process, as on one box. The baseline, from the same run: a bare relay
 * (bench/offer/bare-relay.ts) that publishes a POST's body on Redis and writes it to the
 * WebSocket joined to its topic, driven at the same rate.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const RATE = Number(process.env.BENCH_RATE ?? 30);
const WATCH_EVERY = Number(process.env.BENCH_WATCH_EVERY ?? 10);
// The maker prices for this long before it signs: real makers take a moment, and the taker's join
// (right after its 201) is then done before the offer is sent, so no sample is dropped for it.
const PRICING_MS = Number(process.env.BENCH_PRICING_MS ?? 50);
const DRAIN_MS = 3000;
const DEADLINE_MS = (SECONDS + 120) * 1000;
// BENCH_TRACE=1: the service exports its spans to a collector in this process, and the run ends
// with each stage of an offer's way split out (bench/offer/offer-trace.ts). Tracing costs a little
// itself: runs that record the figure leave it off.
const TRACE = process.env.BENCH_TRACE === '1';
// The exporter sends spans in batches every few seconds: wait that long after the load for the last.
const TRACE_FLUSH_MS = 8000;

const MOTHERSHIP = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const USDC = '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853';

/** Offer-sent and arrival times by key, and the samples they make. */
class Latencies {
  readonly sentAt = new Map<string, number>();
  readonly joinedAt = new Map<string, number>();
  readonly samples: number[] = [];
  joinedLate = 0;

  arrived(key: string, at: number): void {
    const sent = this.sentAt.get(key);
    const joined = this.joinedAt.get(key);
    if (sent === undefined || joined === undefined) return;
    // A taker that joined after the offer was sent hears it from the topic's history, on its join.
    if (joined > sent) this.joinedLate++;
    else this.samples.push(at - sent);
  }

  line(): string {
    const s = this.samples;
    return `p50 ${percentile(s, 50).toFixed(1)} ms   p99 ${percentile(s, 99).toFixed(1)} ms   max ${percentile(s, 100).toFixed(1)} ms   (${s.length} measured)`;
  }
}

/** Calls `tick(i)` RATE times a second for SECONDS, on a fixed schedule that does not wait for the ticks. */
async function paced(tick: (i: number) => Promise<void>): Promise<void> {
  const interval = 1000 / RATE;
  const start = performance.now();
  const running: Promise<void>[] = [];
  let failed: unknown = null;
  for (let i = 0; i < SECONDS * RATE && failed === null; i++) {
    const wait = start + i * interval - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    running.push(tick(i).catch((err: unknown) => void (failed ??= err)));
  }
  await Promise.all(running);
  if (failed !== null) throw failed;
  await new Promise((r) => setTimeout(r, DRAIN_MS));
}

/** A Prometheus text exposition as series -> value (`name{labels}` as printed). */
async function scrape(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** Sum of the growth of every series whose name is `name` (any labels) between two scrapes. */
function grown(before: Map<string, number>, after: Map<string, number>, name: string, labels = ''): number {
  let total = 0;
  for (const [series, v] of after) {
    const bare = series.split('{')[0];
    if (bare === name && series.includes(labels)) total += v - (before.get(series) ?? 0);
  }
  return total;
}

/** The upper bound of the histogram bucket holding the p-th percentile of what it recorded between two scrapes. */
function bucketPercentile(before: Map<string, number>, after: Map<string, number>, name: string, p: number): string {
  const buckets = [...after.keys()]
    .filter((k) => k.startsWith(`${name}_bucket{`))
    .map((k) => ({ le: /le="([^"]+)"/.exec(k)?.[1] ?? '+Inf', n: (after.get(k) ?? 0) - (before.get(k) ?? 0) }));
  const total = buckets.find((b) => b.le === '+Inf')?.n ?? 0;
  if (total === 0) return 'n/a';
  const hit = buckets.filter((b) => b.le !== '+Inf').find((b) => b.n >= (p / 100) * total);
  return hit ? `<= ${Number(hit.le) * 1000} ms` : '> the largest bucket';
}

/** Where the service process's pauses were during the load, from its own /metrics (prom-client's defaults and the socket tier's). */
function pauses(before: Map<string, number>, after: Map<string, number>, seconds: number): string {
  const gcMs = grown(before, after, 'nodejs_gc_duration_seconds_sum') * 1000;
  const gcs = grown(before, after, 'nodejs_gc_duration_seconds_count');
  const majorMs = grown(before, after, 'nodejs_gc_duration_seconds_sum', 'kind="major"') * 1000;
  const lagP99 = (after.get('nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000;
  const lagMax = (after.get('nodejs_eventloop_lag_max_seconds') ?? NaN) * 1000;
  const cpu = grown(before, after, 'process_cpu_seconds_total');
  return (
    `service process over the load: CPU ${((cpu / seconds) * 100).toFixed(0)} % of a core; GC ${gcs} pauses, ${gcMs.toFixed(0)} ms in all (${majorMs.toFixed(0)} ms major); ` +
    `event-loop delay p99 ${lagP99.toFixed(1)} ms, max ${lagMax.toFixed(1)} ms; publish -> hand-off to the connections ` +
    `p50 ${bucketPercentile(before, after, 'socket_delivery_lag_seconds', 50)}, p99 ${bucketPercentile(before, after, 'socket_delivery_lag_seconds', 99)}`
  );
}

/** The service: a taker creating quotes, one maker offering on each, the taker watching one in WATCH_EVERY. */
async function service(): Promise<{ lat: Latencies; created: number; offered: number; refused: string[]; pauses: string; stages: string | null }> {
  const db = await benchDatabase('offer');
  const maker = privateKeyToAccount(generatePrivateKey());
  const ds = createDataSource({ url: db.url, poolSize: 1 });
  await ds.initialize();
  await new NetworksService(ds).upsertNetwork({
    chain_id: 31337,
    name: 'Bench',
    rpc_urls: ['http://127.0.0.1:8545'],
    contracts: { mothership: MOTHERSHIP, opshuns_core: BENCH_PAIR },
    tokens: [{ address: USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6, payment: true, default_premium: true }],
  });
  await new OrganizationService(ds).create({ kind: 'maker', name: 'Bench makers', owner: maker.address });
  await ds.destroy();
  const collector = TRACE ? await startOtlpReceiver() : null;
  const { child, port: listening } = spawnServer(
    'bin/main.ts',
    // this bench's quotes are never filled: the service's signing key is a throwaway
    benchServiceEnv({
      roles: 'api,socket,workers',
      databaseUrl: db.url,
      tag: 'offer',
      extra: {
        // One taker connection joins a stream for every watched quote: up to 30 a second at BENCH_WATCH_EVERY=1, past a client's default join rate.
        SOCKET_JOIN_RATE_PER_MINUTE: String(Math.max(600, Math.ceil((RATE * 60 * 2) / WATCH_EVERY))),
        ...(collector ? { TRACING_OTLP_URL: collector.url } : {}),
      },
    }),
    'api listening',
  );
  const killer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS).unref();
  const conns: PhoenixConnection[] = [];
  try {
    const api = new RfqClient(`http://127.0.0.1:${await listening}`);
    const { token } = await api.signIn(maker);
    const asMaker = api.as(token);
    await asMaker.registerPremium(31337);

    const lat = new Latencies();
    const refused: string[] = [];
    let offered = 0;
    let created = 0;
    let nonce = BigInt(Date.now()) * 1000n;
    const offerOn = async (req: MakerRfqRequest) => {
      await new Promise((r) => setTimeout(r, PRICING_MS));
      const body = await signPackageOffer(maker, {
        chainId: req.chain_id,
        mothership: MOTHERSHIP,
        takerAddressHash: req.taker_address_hash as `0x${string}`,
        legs: req.legs,
        packagePremium: 1_000_000n,
        premiumToken: USDC,
        maker: maker.address,
        nonce: ++nonce,
        deadline: Math.floor(Date.parse(req.expires_at) / 1000),
      });
      lat.sentAt.set(req.quote_id, performance.now());
      try {
        await asMaker.submitOffer(req.quote_id, body);
        offered++;
      } catch (err) {
        refused.push((err as Error).message);
      }
    };
    const makerConn = await PhoenixConnection.open(api.socketUrl, (_topic, event, payload) => {
      if (event === 'rfq_request') void offerOn(payload as unknown as MakerRfqRequest);
    });
    conns.push(makerConn);
    await makerConn.join('quotes:31337:requests', { token });
    // The taker leaves each stream once its offer is in, as a taker done with a quote does.
    const takerConn: PhoenixConnection = await PhoenixConnection.open(api.socketUrl, (topic, event, payload, at) => {
      if (event !== 'rfq_offer') return;
      lat.arrived(String(payload.quote_id), at);
      takerConn.leave(topic);
    });
    conns.push(takerConn);

    const before = await scrape(api.baseUrl);
    const started = performance.now();
    await paced(async (i) => {
      const q = await api.createQuote(oneLegQuoteBody(privateKeyToAccount(generatePrivateKey()).address) as Parameters<RfqClient['createQuote']>[0]);
      created++;
      if (i % WATCH_EVERY !== 0) return;
      await takerConn.join(q.topic);
      lat.joinedAt.set(q.quote.id, performance.now());
    });
    const after = await scrape(api.baseUrl);
    const seconds = (performance.now() - started) / 1000;
    if (collector) await new Promise((r) => setTimeout(r, TRACE_FLUSH_MS));
    const stages = collector ? stageTable(offerTraces(collector.spans)) : null;
    return { lat, created, offered, refused, pauses: pauses(before, after, seconds), stages };
  } finally {
    await collector?.close();
    for (const c of conns) c.close();
    await stopChild(child);
    clearTimeout(killer);
    await db.drop();
  }
}

/** The bare relay at the same rate: every POST published, one topic in WATCH_EVERY joined by the "taker" beforehand. */
async function bare(): Promise<Latencies> {
  const { child, port: listening } = spawnServer(
    'bench/offer/bare-relay.ts',
    { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    'relay listening',
  );
  const conns: PhoenixConnection[] = [];
  try {
    const base = `http://127.0.0.1:${await listening}`;
    const lat = new Latencies();
    const taker: PhoenixConnection = await PhoenixConnection.open(`${base.replace(/^http/, 'ws')}/socket`, (topic, event, _payload, at) => {
      if (event !== 'rfq_offer') return;
      lat.arrived(topic, at);
      taker.leave(topic);
    });
    conns.push(taker);
    // An rfq_offer's size: ids, maker, amounts, nonce, deadline and a 65-byte signature.
    const payload = {
      quote_id: '00000000-0000-4000-8000-000000000000',
      offer_id: '00000000-0000-4000-8000-000000000001',
      maker: MOTHERSHIP,
      offer_type: 'package',
      package_premium: '1000000',
      maker_pays_taker: false,
      premium_token: USDC,
      nonce: String(Date.now() * 1000),
      deadline: Math.floor(Date.now() / 1000) + 300,
      signature: `0x${'ab'.repeat(65)}`,
      created_at: new Date().toISOString(),
    };
    await paced(async (i) => {
      const topic = `rfq_stream:bare-${i}`;
      if (i % WATCH_EVERY === 0) {
        await taker.join(topic);
        lat.joinedAt.set(topic, performance.now());
      }
      lat.sentAt.set(topic, performance.now());
      const res = await fetch(`${base}/relay/${encodeURIComponent(topic)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
      await res.arrayBuffer();
    });
    return lat;
  } finally {
    for (const c of conns) c.close();
    await stopChild(child);
  }
}

export async function offerBench(): Promise<void> {
  const baseline = await bare();
  const s = await service();
  const p99 = percentile(s.lat.samples, 99);
  const bareP99 = percentile(baseline.samples, 99);
  process.stdout.write(
    `\noffer: ${SECONDS} s at ${RATE} quotes/s, ${s.created} quotes created, ${s.offered} offers 201 (${s.refused.length} refused), one quote in ${WATCH_EVERY} watched ` +
      `(${s.lat.joinedLate} joined after their offer was sent, not counted)\n`,
  );
  if (s.refused.length > 0) process.stdout.write(`first refusal: ${s.refused[0]}\n`);
  process.stdout.write(`service     offer sent -> taker's rfq_offer   ${s.lat.line()}   target p99 < 25 ms\n`);
  process.stdout.write(`bare relay  POST sent -> ws message         ${baseline.line()}\n`);
  process.stdout.write(`${s.pauses}\n`);
  process.stdout.write(`p99 ratio service / bare: ${(p99 / bareP99).toFixed(2)}\n`);
  if (s.stages) process.stdout.write(`\nwhere an offer's time goes, from the service's own spans (BENCH_TRACE=1):\n${s.stages}`);
}

if (require.main === module) {
  runBench(offerBench);
}
