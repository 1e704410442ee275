import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { ConfigError, loadConfig } from '../../../shared/platform/config';
import { parseLiveMessage } from '../../../shared/platform/event-bus';
import { createLogger } from '../../../shared/platform/logging';
import { takeTrace, TRACE_FIELD, withTrace } from '../../../shared/platform/queue';
import { currentTraceparent, inSpan, step, traceIdOf, traceparentContext, Tracing, tracesEndpoint } from '../../../shared/platform/tracing';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlp-receiver';

/** A logger of the production kind (createLogger) whose lines the test reads back. */
function capturingLogger(traceIds: boolean) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination: sink, traceIds }), lines };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('tracing configuration', () => {
  it('is off unless an endpoint is set; TRACING_OTLP_URL wins over the standard base endpoint, which gets /v1/traces', async () => {
    expect(tracesEndpoint(loadConfig({}))).toBeNull();
    expect(await Tracing.start(loadConfig({}))).toBeNull();
    // Nothing registered: no span is ever active, so nothing is carried.
    expect(context.with(context.active(), () => currentTraceparent())).toBeUndefined();
    expect(tracesEndpoint(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }))).toBe('http://collector:4318/v1/traces');
    expect(tracesEndpoint(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', TRACING_OTLP_URL: 'https://otlp.example/traces' }))).toBe(
      'https://otlp.example/traces',
    );
  });

  it('refuses an endpoint that is not http(s) and a sample ratio outside 0..1, naming each key', () => {
    let caught: unknown;
    try {
      loadConfig({ TRACING_OTLP_URL: 'grpc://collector:4317', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url', TRACING_SAMPLE_RATIO: '1.5' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems;
    expect(problems.map((p) => p.key).sort()).toEqual(['OTEL_EXPORTER_OTLP_ENDPOINT', 'TRACING_OTLP_URL', 'TRACING_SAMPLE_RATIO']);
    expect(problems.find((p) => p.key === 'TRACING_OTLP_URL')?.message).toBe('must be an http:// or https:// URL');
  });
});

describe('the trace context a job or a live message carries', () => {
  it('a job keeps its payload as it was and carries nothing outside a span; the worker side takes the field off', () => {
    expect(withTrace({ quote_id: 'q' })).toEqual({ quote_id: 'q' });
    expect(takeTrace({ quote_id: 'q', [TRACE_FIELD]: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })).toEqual({
      payload: { quote_id: 'q' },
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    // A field of another type is dropped too: the payload a schema sees never has it.
    expect(takeTrace({ n: 1, [TRACE_FIELD]: 42 })).toEqual({ payload: { n: 1 }, traceparent: undefined });
    expect(takeTrace({ n: 1 })).toEqual({ payload: { n: 1 }, traceparent: undefined });
    expect(traceIdOf('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(traceIdOf('not a traceparent')).toBeUndefined();
  });

  it('a live message reads the same with or without a traceparent before its data', () => {
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(parseLiveMessage('3\trfq_request\t1700000000000\t{"seq":3,"a":"x\\ty"}')).toEqual({
      seq: 3,
      event: 'rfq_request',
      publishedAt: 1700000000000,
      data: '{"seq":3,"a":"x\\ty"}',
    });
    expect(parseLiveMessage(`3\trfq_request\t1700000000000\t${tp}\t{"seq":3}`)).toEqual({
      seq: 3,
      event: 'rfq_request',
      publishedAt: 1700000000000,
      data: '{"seq":3}',
      traceparent: tp,
    });
    expect(parseLiveMessage(`3\trfq_request\t1700000000000\t${tp}`)).toBeNull();
  });
});

describe('tracing on', () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing | null = null;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await tracing?.shutdown();
    tracing = null;
  });
  afterAll(() => receiver.close());

  it('each role exports under its own service name, a span of one role parenting the next, as JSON over OTLP/HTTP', async () => {
    tracing = (await Tracing.start(loadConfig({ ROLES: 'api,workers', TRACING_OTLP_URL: receiver.url })))!;
    expect(tracing.tracer('socket')).toBeUndefined();
    let carried = '';
    await inSpan(tracing.tracer('api'), 'POST /api/quote', {}, async () => {
      carried = currentTraceparent()!;
      expect(withTrace({ quote_id: 'q' })).toEqual({ quote_id: 'q', [TRACE_FIELD]: carried });
    });
    // The other side of the hop: a workers span under the carried context.
    await inSpan(tracing.tracer('workers'), 'job quote.announce', {}, async () => undefined, traceparentContext(carried));
    await tracing.shutdown();
    tracing = null;

    const [, traceId, parentId] = TRACEPARENT.exec(carried)!;
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    expect(spans.map((s) => [s.service, s.name]).sort()).toEqual([
      ['options-rfq-api', 'POST /api/quote'],
      ['options-rfq-workers', 'job quote.announce'],
    ]);
    expect(spans.find((s) => s.name === 'POST /api/quote')).toMatchObject({ spanId: parentId, parentSpanId: '' });
    expect(spans.find((s) => s.name === 'job quote.announce')?.parentSpanId).toBe(parentId);
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/json']));
  });

  it("a step is a child of the active span exported by that span's role, not the registered one; outside a span it only runs", async () => {
    // workers first: its provider is the registered (global) one, the api's is not.
    tracing = (await Tracing.start(loadConfig({ ROLES: 'workers,api', TRACING_OTLP_URL: receiver.url })))!;
    let carried = '';
    const answer = await inSpan(tracing.tracer('api'), 'POST /api/quote/:id', {}, async () => {
      carried = currentTraceparent()!;
      const stored = await step('offer.store', async () => 'stored');
      await step('offer.enqueue', async () => undefined);
      return stored;
    });
    expect(answer).toBe('stored');
    // No span active: the step runs, and nothing is exported for it.
    expect(await step('offer.untraced', async () => 7)).toBe(7);
    await tracing.shutdown();
    tracing = null;

    const [, traceId, requestId] = TRACEPARENT.exec(carried)!;
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    expect(spans.map((s) => [s.service, s.name, s.parentSpanId === requestId]).sort()).toEqual([
      ['options-rfq-api', 'POST /api/quote/:id', false],
      ['options-rfq-api', 'offer.enqueue', true],
      ['options-rfq-api', 'offer.store', true],
    ]);
    expect(receiver.spans.some((s) => s.name === 'offer.untraced')).toBe(false);
  });

  it('a log line written inside a span carries its trace_id and span_id; outside one, or with trace ids off, none', async () => {
    tracing = (await Tracing.start(loadConfig({ ROLES: 'workers', TRACING_OTLP_URL: receiver.url })))!;
    const on = capturingLogger(true);
    const off = capturingLogger(false);
    let ids = { traceId: '', spanId: '' };
    await inSpan(tracing.tracer('workers'), 'job test', {}, async () => {
      ids = trace.getActiveSpan()!.spanContext();
      // After an await too: the span follows the async work, not just the synchronous call.
      await new Promise((r) => setImmediate(r));
      on.logger.child({ job: 'test' }).info('inside');
      off.logger.info('inside');
    });
    on.logger.info('outside');
    on.logger.flush();
    off.logger.flush();
    await new Promise((r) => setImmediate(r));

    expect(on.lines.find((l) => l.msg === 'inside')).toMatchObject({ job: 'test', trace_id: ids.traceId, span_id: ids.spanId });
    expect(on.lines.find((l) => l.msg === 'outside')).not.toHaveProperty('trace_id');
    expect(off.lines.find((l) => l.msg === 'inside')).not.toHaveProperty('trace_id');
    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('a sample ratio of 0 records nothing the service starts, and what it carries says so', async () => {
    tracing = (await Tracing.start(loadConfig({ ROLES: 'api', TRACING_OTLP_URL: receiver.url, TRACING_SAMPLE_RATIO: '0' })))!;
    let carried = '';
    await inSpan(tracing.tracer('api'), 'GET /api/networks', {}, async () => {
      carried = currentTraceparent()!;
    });
    await tracing.shutdown();
    tracing = null;
    expect(carried).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(receiver.spans.filter((s) => s.name === 'GET /api/networks')).toEqual([]);
  });
});
