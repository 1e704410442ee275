import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';

/**
 * Attribute names of OpenTelemetry's (stable) HTTP conventions, written out so that a process
 * that does not trace never loads the conventions package.
 */
export const HTTP = {
  method: 'http.request.method',
  route: 'http.route',
  status: 'http.response.status_code',
} as const;

/**
 * Attribute names of OpenTelemetry's messaging conventions, which are still incubating: their
 * package asks users to copy such names rather than import them, as they may change.
 */
export const MESSAGING = {
  system: 'messaging.system',
  destination: 'messaging.destination.name',
  operation: 'messaging.operation.type',
  messageId: 'messaging.message.id',
} as const;

/**
 * The W3C `traceparent` of the active span, for the hops async context cannot cross (a job's
 * data, a live message on Redis); undefined when no span is active, so untraced work carries nothing.
 */
export function currentTraceparent(): string | undefined {
  if (trace.getActiveSpan() === undefined) return undefined;
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The trace id a carried `traceparent` names, for a log line written outside its span. */
export function traceIdOf(traceparent: string | undefined): string | undefined {
  return traceparent === undefined ? undefined : /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent)?.[1];
}

/** The context a carried `traceparent` continues; the root context when none came. */
export function traceparentContext(traceparent: string | undefined): Context {
  return traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, { traceparent });
}

/**
 * Marks a span failed with the error's class alone: its message may hold values a log line
 * masks (shared/platform/logging), and the log line, which carries the trace id, has the rest.
 */
export function markFailed(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
}

/** The tracer that made each span of ours, so a step inside it is exported by the same role. */
const madeBy = new WeakMap<Span, Tracer>();

/**
 * Runs `fn` in a span of `tracer`, active for everything `fn` awaits (its log lines carry the
 * trace id, the jobs it enqueues and the events it publishes carry the span); a throw marks the
 * span failed. Without a tracer (tracing off, or not this role's) it only runs `fn`.
 */
export async function inSpan<T>(
  tracer: Tracer | undefined,
  name: string,
  opts: SpanOptions,
  fn: (span: Span | undefined) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  if (!tracer) return fn(undefined);
  return tracer.startActiveSpan(name, opts, parent, async (span) => {
    madeBy.set(span, tracer);
    try {
      return await fn(span);
    } catch (err) {
      markFailed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Records that `tracer` made `span` (for spans not made by `inSpan`, such as a request's). */
export function madeByTracer(span: Span, tracer: Tracer): Span {
  madeBy.set(span, tracer);
  return span;
}

/**
 * Runs `fn` as a named INTERNAL step of the active span, a child made by the same role's tracer:
 * where a request or a job spends its time (`offer.recover`, `offer.store`). When nothing is
 * traced (tracing off, or the active span is not one of ours) it only runs `fn`, with no span and
 * no allocation beyond the lookup.
 */
export function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const active = trace.getActiveSpan();
  const tracer = active && madeBy.get(active);
  if (!tracer) return fn();
  return inSpan(tracer, name, { kind: SpanKind.INTERNAL }, () => fn());
}
