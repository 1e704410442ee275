import type { ReceivedSpan } from '../../test/support/otlp-receiver';
import { percentile } from '../support/bench-db';
import { spanTree } from '../support/span-tree';

/**
 * Splits each quote's way from its 201 to the makers into stages, from the spans the service
 * exported (docs/TRACING.md): the API's `POST /api/quote`, the `job quote.announce` it enqueued,
 * the job's `publish quotes_requests`, the socket tier's `deliver rfq_request` (the hand-off to
 * every joined channel), then the makers' own arrival times as the bench read them. All on this
 * machine's clock; span start times are whole milliseconds in the SDK (durations are not), so a
 * gap between two spans is good to a millisecond.
 */
export interface QuoteTrace {
  request: ReceivedSpan;
  job: ReceivedSpan;
  publish: ReceivedSpan;
  deliver: ReceivedSpan;
  /** Epoch ms at which each maker's socket read the quote's `rfq_request`. */
  arrivals: number[];
}

/** The traces of `quotes` sequential quote creates (in the order they were sent), each with its makers' arrival times. */
export function quoteTraces(spans: readonly ReceivedSpan[], arrivalsInOrder: readonly number[][]): QuoteTrace[] {
  const { child } = spanTree(spans);
  // The bench sends one quote at a time, so the creates' spans in start order are its quotes in order.
  const creates = spans
    .filter((s) => s.name === 'POST /api/quote' && s.attributes['http.response.status_code'] === 201)
    .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  const out: QuoteTrace[] = [];
  creates.forEach((request, i) => {
    const job = child(request, 'job quote.announce');
    const publish = job && child(job, 'publish quotes_requests');
    const deliver = publish && child(publish, 'deliver rfq_request');
    const arrivals = arrivalsInOrder[i];
    if (job && publish && deliver && arrivals && arrivals.length > 0) out.push({ request, job, publish, deliver, arrivals });
  });
  return out;
}

const STAGES: { name: string; of: (t: QuoteTrace) => number[] }[] = [
  { name: 'request end (201 sent) -> job starts (pickup)', of: (t) => [t.job.startMs - t.request.endMs] },
  { name: 'job start -> publish starts (the job reads its quote)', of: (t) => [t.publish.startMs - t.job.startMs] },
  { name: 'publish to quotes_requests (Redis)', of: (t) => [t.publish.endMs - t.publish.startMs] },
  { name: 'publish end -> socket tier delivers (pub/sub)', of: (t) => [t.deliver.startMs - t.publish.endMs] },
  { name: 'deliver: encode and hand-off to every joined channel', of: (t) => [t.deliver.endMs - t.deliver.startMs] },
  { name: 'deliver end -> a maker reads it (per maker: socket writes, kernel, the client)', of: (t) => t.arrivals.map((a) => a - t.deliver.endMs) },
  { name: 'request end -> a maker reads it (per maker)', of: (t) => t.arrivals.map((a) => a - t.request.endMs) },
];

/** Each stage's p50 / p99 over every quote (per maker where the stage is per maker), and the same for the quotes whose slowest maker is in the slowest 5 %. */
export function fanoutStageTable(traces: readonly QuoteTrace[]): string {
  if (traces.length === 0) return 'no quote traces were exported\n';
  const slowest = (t: QuoteTrace) => Math.max(...t.arrivals) - t.request.endMs;
  const cut = percentile(traces.map(slowest), 95);
  const tail = traces.filter((t) => slowest(t) >= cut);
  const cell = (ts: readonly QuoteTrace[], of: (t: QuoteTrace) => number[], p: number) => percentile(ts.flatMap(of), p).toFixed(2);
  return [
    `${traces.length} quote traces, ${traces.reduce((n, t) => n + t.arrivals.length, 0)} maker arrivals; the ${tail.length} quotes whose slowest maker heard them >= ${cut.toFixed(1)} ms after the 201 in the last column`,
    '| stage | p50 ms | p99 ms | p50 of the slowest 5 % of quotes, ms |',
    '|---|---|---|---|',
    ...STAGES.map(({ name, of }) => `| ${name} | ${cell(traces, of, 50)} | ${cell(traces, of, 99)} | ${cell(tail, of, 50)} |`),
    '',
  ].join('\n');
}
