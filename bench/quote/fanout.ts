import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import WebSocket from 'ws';
import { createDataSource } from '../../shared/entities';
import { NetworksService } from '../../shared/networks';
import { RfqClient as ApiClient } from '../../client/src';
import { benchDatabase, percentile } from '../support/bench-db';
import { spawnServer } from '../support/spawn-server';
import { BENCH_WRITE_LIMITS } from './bench-limits';

const PAIR = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const MAKERS = Number(process.env.BENCH_MAKERS ?? 500);
const QUOTES = Number(process.env.BENCH_QUOTES ?? 100);
const DEADLINE_MS = 5 * 60_000;

/** One maker: signs in, registers freemium for the chain, joins the feed over a raw Phoenix v2 socket. */
async function maker(api: ApiClient, onRequest: (quoteId: string, at: number) => void): Promise<WebSocket> {
  const token = (await api.signIn(privateKeyToAccount(generatePrivateKey()))).token;
  await api.call('POST', '/api/pubsub/freemium', { chain_id: 31337 }, { authorization: `Bearer ${token}` });
  const ws = new WebSocket(`${api.socketUrl}/websocket?vsn=2.0.0`, { perMessageDeflate: false });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => ws.send(JSON.stringify(['1', '1', 'quotes:31337:requests', 'phx_join', { token }])));
    ws.on('message', (raw: Buffer) => {
      const [, ref, , event, payload] = JSON.parse(raw.toString()) as [string | null, string | null, string, string, Record<string, unknown>];
      if (event === 'phx_reply' && ref === '1') {
        const status = (payload as { status?: string }).status;
        if (status === 'ok') resolve();
        else reject(new Error(`join refused: ${JSON.stringify(payload)}`));
      } else if (event === 'rfq_request') onRequest(String(payload.quote_id), performance.now());
    });
    ws.once('error', reject);
  });
  return ws;
}

/** 201-to-rfq_request latency at N joined makers: API, socket and workers in one child process. */
export async function fanout(): Promise<void> {
  const db = await benchDatabase('fanout');
  const ds = createDataSource({ url: db.url, poolSize: 1 });
  await ds.initialize();
  await new NetworksService(ds).upsertNetwork({
    chain_id: 31337,
    name: 'Bench',
    rpc_urls: ['http://127.0.0.1:8545'],
    contracts: { mothership: PAIR, opshuns_core: PAIR },
    tokens: [],
  });
  await ds.destroy();
  const { child, port: listening } = spawnServer(
    'bin/main.ts',
    {
      ROLES: 'api,socket,workers',
      PORT: '0',
      DATABASE_URL: db.url,
      REDIS_PREFIX: `bench:${Date.now()}:`,
      LOG_LEVEL: 'info',
      DEVCHAIN: 'off',
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('hex'),
      // production refuses the public development signing key; these benches never sign
      SERVICE_SIGNER_KEY: `0x${randomBytes(32).toString('hex')}`,
      NONCE_RATE_LIMIT: '100000',
      LOGIN_RATE_LIMIT: '100000',
      // every bench maker connects from 127.0.0.1
      SOCKET_MAX_CONNECTIONS_PER_IP: String(MAKERS + 100),
      ...BENCH_WRITE_LIMITS,
    },
    'api listening',
  );
  const killer = setTimeout(() => child.kill('SIGKILL'), DEADLINE_MS).unref();
  const sockets: WebSocket[] = [];
  try {
    const port = await listening;
    const api = new ApiClient(`http://127.0.0.1:${port}`);
    const arrivals = new Map<string, number[]>();
    const onRequest = (id: string, at: number) => {
      const list = arrivals.get(id);
      if (list) list.push(at);
      else arrivals.set(id, [at]);
    };
    for (let i = 0; i < MAKERS; i += 50) {
      sockets.push(...(await Promise.all(Array.from({ length: Math.min(50, MAKERS - i) }, () => maker(api, onRequest)))));
    }
    const expiry = Math.floor(Date.now() / 1000) + 86400;
    const body = {
      chain_id: 31337,
      taker_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      polarity: 'b_is_buy',
      expires_in: 300,
      intents: [
        {
          pair6909_contract: PAIR,
          option_type: 'call',
          structure: 0,
          start_exercise_timestamp: 0,
          expiry_timestamp: expiry,
          strike_wad: '3000000000000000000000',
          amount: '1000000000000000000',
        },
      ],
    };
    const latencies: number[] = [];
    const fromSent: number[] = [];
    let beforeAnswer = 0;
    let complete = 0;
    for (let q = 0; q < QUOTES; q++) {
      const sent = performance.now();
      const created = await api.call<{ quote: { id: string } }>('POST', '/api/quote', body);
      const t201 = performance.now();
      const until = Date.now() + 5000;
      while ((arrivals.get(created.quote.id)?.length ?? 0) < MAKERS && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
      const got = arrivals.get(created.quote.id) ?? [];
      if (got.length === MAKERS) complete++;
      for (const at of got) {
        // A maker may hear the quote before the taker's client has read its 201: counted, and as 0.
        if (at < t201) beforeAnswer++;
        latencies.push(Math.max(0, at - t201));
        fromSent.push(at - sent);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    process.stdout.write(
      `\nfan-out: ${MAKERS} joined makers, ${QUOTES} quotes, ${latencies.length} deliveries (${complete}/${QUOTES} quotes reached every maker)\n`,
    );
    const line = (xs: number[]) =>
      `p50 ${percentile(xs, 50).toFixed(1)} ms   p99 ${percentile(xs, 99).toFixed(1)} ms   max ${percentile(xs, 100).toFixed(1)} ms`;
    process.stdout.write(`201 -> rfq_request   ${line(latencies)}   target p99 < 15 ms (${beforeAnswer} deliveries arrived before the 201 was read)\n`);
    process.stdout.write(`sent -> rfq_request  ${line(fromSent)}   target p99 < 40 ms\n`);
  } finally {
    for (const s of sockets) s.terminate();
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    clearTimeout(killer);
    await db.drop();
  }
}

if (require.main === module) {
  fanout().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
