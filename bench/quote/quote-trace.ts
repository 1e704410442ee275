import type { ReceivedSpan } from '../../test/support/otlp-receiver';
import { percentile } from '../support/bench-db';
import { spanTree } from '../support/span-tree';

/**
 * Splits each quote create into where its time went, from the spans the API exported
 * (docs/TRACING.md): the `POST /api/quote` server span and its steps (`quote.pairs`,
 * `quote.mint`, `quote.insert`: shared/quotes/quote.service.ts; the write budgets' `limit.*`
 * when they ran). A step's time is mostly waiting for its round trip and for the event loop; the
 * gaps between steps are the request's own CPU and its turns in the event loop's queue.
 */
const STEPS = ['quote.pairs', 'quote.mint', 'quote.insert'] as const;

interface CreateTrace {
  request: ReceivedSpan;
  steps: Map<string, ReceivedSpan>;
}

function createTraces(spans: readonly ReceivedSpan[]): CreateTrace[] {
  const { children } = spanTree(spans);
  return spans
    .filter((s) => s.name === 'POST /api/quote' && s.attributes['http.response.status_code'] === 201)
    .map((request) => ({ request, steps: new Map(children(request).map((s) => [s.name, s])) }))
    .filter((t) => STEPS.every((n) => t.steps.has(n)));
}

const dur = (s: ReceivedSpan) => s.endMs - s.startMs;

const STAGES: { name: string; of: (t: CreateTrace) => number }[] = [
  { name: 'request start -> quote.pairs (middleware, body parse, checks)', of: (t) => t.steps.get('quote.pairs')!.startMs - t.request.startMs },
  { name: 'quote.pairs (the cached pair directory)', of: (t) => dur(t.steps.get('quote.pairs')!) },
  { name: 'quote.mint (the stream token, one Redis SET)', of: (t) => dur(t.steps.get('quote.mint')!) },
  { name: 'quote.insert (group commit: the batch ahead, then ours)', of: (t) => dur(t.steps.get('quote.insert')!) },
  { name: 'insert end -> request end (the coalesced enqueue, the answer)', of: (t) => t.request.endMs - t.steps.get('quote.insert')!.endMs },
  { name: 'the whole request (server span)', of: (t) => dur(t.request) },
];

/** Each stage's p50 / p99 over every traced create. */
export function quoteStageTable(spans: readonly ReceivedSpan[]): string {
  const traces = createTraces(spans);
  if (traces.length === 0) return 'no quote create traces were exported\n';
  return [
    `${traces.length} traced creates`,
    '| stage | p50 ms | p99 ms |',
    '|---|---|---|',
    ...STAGES.map((s) => {
      const xs = traces.map(s.of);
      return `| ${s.name} | ${percentile(xs, 50).toFixed(2)} | ${percentile(xs, 99).toFixed(2)} |`;
    }),
    '',
  ].join('\n');
}
