import { NetworksService } from '../../shared/networks';
import { FeedRecorder } from '../faults/feed-recorder';
import type { TestChain } from '../support/chain';
import { sharedTestChain } from '../support/worker-chain';
import { assertNoTakerIdentity, eventually } from '../support/events';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { createQuote, premiumMakerFeed, ROLE_PROCESSES } from '../support/role-processes';
import { spawnService, type RunningService } from '../support/spawn-service';
import { createTestEnv, type TestEnv } from '../support/test-env';

const CHAIN_ID = 31337;
/** OTLP span kinds. */
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

/**
 * One quote's trace across the roles as production runs them, one process each, exporting to an
 * OTLP/HTTP receiver in the test: the API's request, the workers' fan-out job, its publish, the
 * socket replica's delivery to a joined maker; and the indexer's commit of a block.
 */
describe('traces across the roles (TRACING_OTLP_URL)', () => {
  let receiver: OtlpReceiver;
  let chain: TestChain;
  let env: TestEnv;
  const procs = new Map<string, RunningService>();
  let feed: FeedRecorder | undefined;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    [chain, env] = await Promise.all([sharedTestChain(), createTestEnv()]);
    await new NetworksService(env.db).upsertNetwork(chain.network);
    const common = {
      DEVCHAIN: 'off',
      MIGRATE_ON_START: 'false',
      DATABASE_CREATE_IF_MISSING: 'false',
      DATABASE_URL: env.config.DATABASE_URL,
      REDIS_URL: env.config.REDIS_URL,
      REDIS_PREFIX: env.config.REDIS_PREFIX,
      INDEXER_POLL_INTERVAL_MS: '200',
      TRACING_OTLP_URL: receiver.url,
    };
    await Promise.all(
      ROLE_PROCESSES.map(async (p) => procs.set(p.roles, await spawnService({ ...common, ROLES: p.roles }, { timeoutMs: 90_000, ...p.ready }))),
    );
  }, 180_000);

  afterAll(async () => {
    await feed?.close();
    await Promise.allSettled([...procs.values()].map((p) => p.stop('SIGTERM')));
    await env?.close();
    await chain?.stop();
    await receiver?.close();
  }, 60_000);

  const inTrace = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);
  const childOf = (spans: ReceivedSpan[], parent: ReceivedSpan, match: Partial<ReceivedSpan>) =>
    spans.find((s) => s.parentSpanId === parent.spanId && Object.entries(match).every(([k, v]) => s[k as keyof ReceivedSpan] === v));

  it('one trace id joins POST /api/quote, the quote.announce job, its publish and the socket delivery to the maker', async () => {
    const api = procs.get('api')!;
    feed = await premiumMakerFeed(env, api.url, procs.get('socket')!.url, CHAIN_ID, 'Trace maker');

    const { status, quote, taker, referrer } = await createQuote(api.url, chain.addresses.pair);
    expect(status).toBe(201);
    await eventually(
      async () => feed!.named('rfq_request').filter((p) => p.quote_id === quote.id),
      (got) => got.length === 1,
      60_000,
      "the maker's rfq_request",
    );

    // The API's span of the request is a root: the trace begins with the taker's POST.
    const root = await eventually(
      async () => receiver.spans.find((s) => s.name === 'POST /api/quote' && s.service === 'options-rfq-api'),
      (s) => s !== undefined,
      60_000,
      'the API span of POST /api/quote',
    );
    expect(root).toMatchObject({ kind: SERVER, parentSpanId: '', attributes: { 'http.route': '/api/quote', 'http.response.status_code': 201 } });
    const traceId = root!.traceId;
    const chainOfSpans = await eventually(
      async () => {
        const spans = inTrace(traceId);
        const job = childOf(spans, root!, { name: 'job quote.announce', service: 'options-rfq-workers', kind: CONSUMER });
        const publish = job && childOf(spans, job, { name: 'publish quotes_requests', service: 'options-rfq-workers', kind: PRODUCER });
        const deliver = publish && childOf(spans, publish, { name: 'deliver rfq_request', service: 'options-rfq-socket', kind: CONSUMER });
        return { job, publish, deliver };
      },
      (c) => c.deliver !== undefined,
      60_000,
      'the job, publish and delivery spans under the request',
    );
    expect(chainOfSpans.job?.attributes).toMatchObject({ 'messaging.system': 'bullmq', 'messaging.destination.name': 'quotes' });
    expect(chainOfSpans.publish?.attributes).toMatchObject({ 'messaging.destination.name': 'quotes_requests', 'rfq.event': 'rfq_request' });
    expect(chainOfSpans.deliver?.attributes).toMatchObject({ 'rfq.event': 'rfq_request', 'rfq.channels': 1 });
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/json']));

    // The API's log line of the request names the same trace.
    const line = api.lines.find((l) => l.msg === 'request' && l.route === '/api/quote' && l.status === 201);
    expect(line).toMatchObject({ trace_id: traceId });

    // What the maker received carries no trace context, nor the taker's identity.
    const payloads = feed.named('rfq_request');
    expect(JSON.stringify(payloads)).not.toContain(traceId);
    for (const p of payloads) expect(Object.keys(p).filter((k) => /trace/i.test(k))).toEqual([]);
    assertNoTakerIdentity(payloads, { taker, referrer, salt: quote.taker_salt });
  }, 180_000);

  it('the indexer commits a new block in a span of its own', async () => {
    await chain.rpc('evm_mine');
    const block = Number(await chain.publicClient.getBlockNumber());
    const commit = await eventually(
      async () =>
        receiver.spans.find(
          (s) =>
            s.name === 'indexer commit' &&
            s.service === 'options-rfq-indexer' &&
            s.attributes['rfq.chain_id'] === CHAIN_ID &&
            Number(s.attributes['rfq.block.from']) <= block &&
            Number(s.attributes['rfq.block.to']) >= block,
        ),
      (s) => s !== undefined,
      60_000,
      `an indexer commit span covering block ${block}`,
    );
    expect(commit?.parentSpanId).toBe('');
  }, 120_000);
});
