import fc from 'fast-check';
import type { Socket } from 'phoenix';
import WebSocket from 'ws';
import { quotesRequestsTopic, rfqMakerTopic, rfqStreamTopic, topics } from '../../shared/events';
import { hashStreamToken, StreamTokens } from '../../shared/platform/stream-tokens';
import { randomAddress } from '../support/fixtures';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { testSeed } from '../support/test-seed';
import { disconnect, join, metricValue, phoenixSocket, publisher, startReplica, waitFor, type Replica } from '../integration/socket/socket-harness';

/**
 * Generated frames against a real replica: malformed JSON, wrong arity, huge payloads, unknown
 * events, binary frames, bad topics, in either protocol version. Each run is one connection
 * that sends a sequence of frames and then a heartbeat. The property: the connection is either
 * still served (the heartbeat is answered) or was closed cleanly with a protocol close code;
 * never 1011 (a handler threw), never an uncaught error. Afterwards a fresh client is served.
 */

/** Close codes that mean "you sent something we refuse", as opposed to "we broke". */
const CLEAN_CLOSES = new Set([1002, 1007, 1008, 1009]);
const MAX_FRAME_BYTES = 64 * 1024;
/** The budget is a count (FUZZ_SOCKET_RUNS), and the connections come from the run's seed (TEST_SEED): a failure replays. */
const RUNS = Number(process.env.FUZZ_SOCKET_RUNS ?? 1000);

type Frame = { text: string } | { binary: Buffer };

function frames(validToken: string): fc.Arbitrary<Frame> {
  const ref = fc.oneof(fc.constant(null), fc.string({ maxLength: 70 }), fc.integer(), fc.double(), fc.boolean(), fc.constant({}));
  const topic = fc.oneof(
    fc.constantFrom(
      'phoenix',
      rfqStreamTopic(validToken),
      rfqStreamTopic('A'.repeat(43)),
      quotesRequestsTopic(31337),
      quotesRequestsTopic(99999999999999),
      rfqMakerTopic(randomAddress()),
      'rfq_maker:0xnothex',
      'margin:1:requests',
      'quotes:0:requests',
      `rfq_stream:${'x'.repeat(300)}`,
      '',
    ),
    fc.string({ maxLength: 300 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
  );
  const event = fc.oneof(
    fc.constantFrom('phx_join', 'phx_leave', 'heartbeat', 'phx_reply', 'phx_close', 'rfq_offer', '', 'x'.repeat(100)),
    fc.string({ maxLength: 20 }),
  );
  const joinPayload = fc.record(
    {
      last_seq: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(Number.MAX_SAFE_INTEGER + 2), fc.constant(-1)),
      token: fc.oneof(fc.string({ maxLength: 5000 }), fc.integer()),
      api_key: fc.oneof(fc.string({ maxLength: 2000 }), fc.constant(`mk_${'0'.repeat(32)}_${'A'.repeat(43)}`)),
    },
    { requiredKeys: [] },
  );
  const payload = fc.oneof(joinPayload, fc.jsonValue({ maxDepth: 3 }), fc.constant(undefined));
  const v2 = fc.tuple(ref, ref, topic, event, payload).map((t) => ({ text: JSON.stringify(t) }));
  const v1 = fc.record({ topic, event, payload, ref, join_ref: ref }, { requiredKeys: [] }).map((o) => ({ text: JSON.stringify(o) }));
  const wrongArity = fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 8 }).map((a) => ({ text: JSON.stringify(a) }));
  const truncated = v2.chain((f) => fc.nat(f.text.length).map((n) => ({ text: f.text.slice(0, n) })));
  const noise = fc.string({ unit: 'binary', maxLength: 200 }).map((text) => ({ text }));
  const huge = fc.integer({ min: MAX_FRAME_BYTES - 64, max: MAX_FRAME_BYTES + 4096 }).map((n) => ({
    text: JSON.stringify(['1', '1', rfqStreamTopic(validToken), 'phx_join', { pad: 'p'.repeat(n) }]),
  }));
  const binaryRaw = fc.uint8Array({ maxLength: 300 }).map((b) => ({ binary: Buffer.from(b) }));
  const binaryShaped = fc
    .tuple(fc.constantFrom(0, 1, 2, 7), fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), topic, event, fc.uint8Array({ maxLength: 64 }), fc.nat(20))
    .map(([kind, j, r, t, e, body, lie]) => {
      const parts = [j, r, t, e].map((s) => Buffer.from(s, 'utf8').subarray(0, 255));
      // `lie` sometimes overstates a length, so a header can point past the frame
      const header = Buffer.from([kind, ...parts.map((p, i) => (i === 2 ? Math.min(255, p.length + lie) : p.length))]);
      return { binary: Buffer.concat([header, ...parts, Buffer.from(body)]) };
    });
  return fc.oneof(
    { arbitrary: v2, weight: 6 },
    { arbitrary: v1, weight: 2 },
    { arbitrary: wrongArity, weight: 2 },
    { arbitrary: truncated, weight: 2 },
    { arbitrary: noise, weight: 2 },
    { arbitrary: huge, weight: 1 },
    { arbitrary: binaryRaw, weight: 1 },
    { arbitrary: binaryShaped, weight: 2 },
  );
}

/** Sends the frames on a new connection, then a heartbeat: how the connection ended up. */
async function exchange(url: string, sequence: Frame[]): Promise<{ served: true } | { served: false; code: number }> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise((resolve) => {
      // neither an answer nor a close: the server hung the connection, which the property forbids
      timer = setTimeout(() => resolve({ served: false, code: -1 }), 5000);
      ws.on('error', () => undefined);
      ws.on('close', (code) => resolve({ served: false, code }));
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const text = String(data);
        if (text.includes('"fuzz-sentinel"')) resolve({ served: true });
      });
      for (const f of sequence) {
        if (ws.readyState !== WebSocket.OPEN) return;
        if ('text' in f) ws.send(f.text);
        else ws.send(f.binary, { binary: true });
      }
      if (ws.readyState !== WebSocket.OPEN) return;
      const vsn2 = url.includes('vsn=2.0.0');
      ws.send(
        vsn2
          ? JSON.stringify([null, 'fuzz-sentinel', 'phoenix', 'heartbeat', {}])
          : JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 'fuzz-sentinel' }),
      );
    });
  } finally {
    clearTimeout(timer);
    ws.terminate();
  }
}

describe('socket frames, fuzzed', () => {
  let env: TestEnv;
  let r: Replica;
  let token: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    env = await createTestEnv({ SOCKET_MAX_BAD_FRAMES: '20', SOCKET_JOIN_BURST: '1000', SOCKET_MAX_CONNECTIONS_PER_IP: '1000' });
    r = await startReplica(env);
    token = await new StreamTokens(env.redis, env.config.REDIS_PREFIX).mint('rfq', 600, {});
  });
  afterAll(async () => {
    await Promise.all(sockets.splice(0).map(disconnect));
    await r.close();
    await env.close();
  });

  it(`keeps every one of ${RUNS} connections served or closes it cleanly, never throws, and serves a fresh client afterwards`, async () => {
    const thrown: unknown[] = [];
    const onThrown = (err: unknown) => thrown.push(err);
    process.on('uncaughtException', onThrown);
    process.on('unhandledRejection', onThrown);
    try {
      await fuzz();
    } finally {
      process.off('uncaughtException', onThrown);
      process.off('unhandledRejection', onThrown);
    }
    expect(thrown).toEqual([]);
    // A bound on a hang, not a speed target: a thousand connections on a busy two-core machine take a while.
  }, 300_000);

  async function fuzz(): Promise<void> {
    const outcomes = { served: 0, closed: 0 };
    process.stdout.write(`socket frame fuzz: seed ${testSeed()}, ${RUNS} connections (TEST_SEED=${testSeed()} FUZZ_SOCKET_RUNS=${RUNS} replays it)\n`);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('2.0.0', '1.0.0'), fc.array(frames(token), { minLength: 1, maxLength: 30 }), async (vsn, sequence) => {
        const end = await exchange(`${r.wsUrl}?vsn=${vsn}`, sequence);
        if (end.served) outcomes.served++;
        else {
          outcomes.closed++;
          expect(CLEAN_CLOSES).toContain(end.code);
        }
      }),
      // A count, not a time: the same seed replays the same connections however busy the machine is.
      { numRuns: RUNS, seed: testSeed() },
    );
    // the generators reach both ends: frames a connection survives and frames that close it
    expect(outcomes.served).toBeGreaterThan(0);
    expect(outcomes.closed).toBeGreaterThan(0);
    expect(await metricValue(r, 'socket_disconnects_total', { reason: 'internal_error' })).toBe(0);
    await waitFor(() => r.socket.connectionCount === 0, 10_000, 'every fuzzed connection to be gone');

    const s = phoenixSocket(r.url);
    sockets.push(s);
    const j = await join(s, rfqStreamTopic(token));
    expect(j.reply.status).toBe('ok');
    await publisher(env).publish(topics.rfqStream(hashStreamToken(token)), 'rfq_offer', { quote_id: 'after the fuzz' });
    await waitFor(() => j.events.some((e) => e.payload.quote_id === 'after the fuzz'), 5000, 'a live event on a fresh client');
  }
});
