import type { ReceivedSpan } from '../../test/support/otlp-receiver';
import { percentile } from '../support/bench-db';
import { spanTree } from '../support/span-tree';

/**
 * Splits each offer's way to the taker into its stages, from the spans the service exported
 * (docs/TRACING.md): the API's `POST /api/quote/:id`, the `job offer.announce` it enqueued, the
 * job's `publish rfq_stream` and the socket tier's `deliver rfq_offer` under it. All four roles'
 * clocks are this machine's, so stages are differences of their start and end times.
 */
export interface OfferTrace {
  request: ReceivedSpan;
  job: ReceivedSpan;
  publish: ReceivedSpan;
  /** Only for offers whose taker was watching its stream (one in BENCH_WATCH_EVERY): a publish nobody joined is not delivered. */
  deliver: ReceivedSpan | undefined;
  /** The request's own steps (`offer.read`, `offer.recover`, ...: shared/quotes/offer.service.ts), by name. */
  steps: Map<string, ReceivedSpan>;
}

/** The steps of an offer's request, in the order the service runs them. */
const STEPS = [
  'auth.bearer',
  'limit.write',
  'auth.maker_rights',
  'offer.read',
  'offer.pairs',
  'offer.recover',
  'offer.nonce',
  'offer.store',
  'offer.enqueue',
] as const;

/** Offer traces: a 201, its job and the publish to the taker's stream, with the delivery when a taker was watching. */
export function offerTraces(spans: readonly ReceivedSpan[]): OfferTrace[] {
  const { children, child } = spanTree(spans);
  const out: OfferTrace[] = [];
  for (const request of spans) {
    if (request.name !== 'POST /api/quote/:id' || request.attributes['http.response.status_code'] !== 201) continue;
    const steps = new Map(
      children(request)
        .filter((s) => (STEPS as readonly string[]).includes(s.name))
        .map((s) => [s.name, s]),
    );
    // The job is enqueued inside the request's `offer.enqueue` step when the service has steps.
    const enqueue = steps.get('offer.enqueue');
    const job = child(enqueue ?? request, 'job offer.announce');
    const publish = job && child(job, 'publish rfq_stream');
    const deliver = publish && child(publish, 'deliver rfq_offer');
    if (job && publish) out.push({ request, job, publish, deliver, steps });
  }
  return out;
}

const stepMs = (t: OfferTrace, name: string) => {
  const s = t.steps.get(name);
  return s ? s.endMs - s.startMs : NaN;
};

const gap = (t: OfferTrace, from: string, to: string) => {
  const a = t.steps.get(from);
  const b = t.steps.get(to);
  return a && b ? b.startMs - a.endMs : NaN;
};

const STAGES: { name: string; of: (t: OfferTrace) => number }[] = [
  { name: 'API request (checks, commit, enqueue, answer)', of: (t) => t.request.endMs - t.request.startMs },
  // Before the first step: the request's context, routing and the start of the middleware.
  { name: '  request start -> first step', of: (t) => (t.steps.has('auth.bearer') ? t.steps.get('auth.bearer')!.startMs - t.request.startMs : NaN) },
  // Body parsing and routing sit between the write budgets' charge and the maker-rights read.
  { name: '  limits end -> maker-rights read (body parse, routing)', of: (t) => gap(t, 'limit.write', 'auth.maker_rights') },
  { name: '  maker-rights end -> offer.read (body checks)', of: (t) => gap(t, 'auth.maker_rights', 'offer.read') },
  ...STEPS.map((name) => ({ name: `  ${name}`, of: (t: OfferTrace) => stepMs(t, name) })),
  {
    name: '  enqueue end -> request end (answer written)',
    of: (t) => (t.steps.has('offer.enqueue') ? t.request.endMs - t.steps.get('offer.enqueue')!.endMs : NaN),
  },
  { name: 'request end -> job starts (pickup)', of: (t) => t.job.startMs - t.request.endMs },
  { name: 'job start -> publish starts (reads)', of: (t) => t.publish.startMs - t.job.startMs },
  { name: 'publish to the taker stream', of: (t) => t.publish.endMs - t.publish.startMs },
  { name: 'request start -> published', of: (t) => t.publish.endMs - t.request.startMs },
  { name: 'publish end -> socket tier delivers (pub/sub), watched offers', of: (t) => (t.deliver ? t.deliver.startMs - t.publish.endMs : NaN) },
  { name: 'deliver (hand-off to the joined channels), watched offers', of: (t) => (t.deliver ? t.deliver.endMs - t.deliver.startMs : NaN) },
];

/**
 * A table of each stage's p50 / p99 over every offer trace, then the same stages for the slowest
 * 1 % (request start -> published at or above its p99): which stage the tail comes from.
 */
export function stageTable(traces: readonly OfferTrace[]): string {
  if (traces.length === 0) return 'no offer traces were exported\n';
  const total = (t: OfferTrace) => t.publish.endMs - t.request.startMs;
  const cut = percentile(traces.map(total), 99);
  const tail = traces.filter((t) => total(t) >= cut);
  const cell = (xs: number[], p: number) => {
    const known = xs.filter((x) => !Number.isNaN(x));
    return known.length === 0 ? 'n/a' : percentile(known, p).toFixed(2);
  };
  const rows = STAGES.map(({ name, of }) => `| ${name} | ${cell(traces.map(of), 50)} | ${cell(traces.map(of), 99)} | ${cell(tail.map(of), 50)} |`);
  return [
    `${traces.length} offer traces (${traces.filter((t) => t.deliver).length} watched); the slowest ${tail.length} (request -> published >= ${cut.toFixed(1)} ms) in the last column`,
    '| stage | p50 ms | p99 ms | median of the slowest 1 %, ms |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
