import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { serializeError } from './error-serializer';
import { redactSecrets } from './redaction';

export type { Logger };

/**
 * Any error logged at the top level of a line, whatever its key (`err`, `error`, `cause`...),
 * goes through the masking serializer; pino's own serializers only know the keys named.
 */
function serializeErrors(obj: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(obj)) {
    if (v instanceof Error) (out ??= { ...obj })[k] = serializeError(v);
  }
  return out ?? obj;
}

/**
 * The active span's ids, so a log line and its trace find each other (docs/TRACING.md). A fresh
 * object each time: pino merges the line's own fields into what this returns.
 */
function traceIds(): Record<string, string> {
  const ctx = trace.getActiveSpan()?.spanContext();
  return ctx && isSpanContextValid(ctx) ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
}

/**
 * The process logger: JSON lines on stdout (or `destination`), one `role` field per process.
 * `traceIds`: every line logged while a span is active gets its `trace_id` and `span_id` (set
 * when the process traces; off, lines cost nothing more).
 */
export function createLogger(opts: {
  level: string;
  name?: string;
  base?: Record<string, unknown>;
  destination?: pino.DestinationStream;
  traceIds?: boolean;
}): Logger {
  const options: pino.LoggerOptions = {
    level: opts.level,
    name: opts.name ?? 'options-rfq',
    base: { pid: process.pid, ...opts.base },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Secrets (./redaction.ts) censored in each line's fields and in each child logger's bindings.
    formatters: { level: (label) => ({ level: label }), log: (obj) => redactSecrets(serializeErrors(obj)), bindings: redactSecrets },
    serializers: { err: serializeError, error: serializeError },
    ...(opts.traceIds ? { mixin: traceIds } : {}),
  };
  // Stdout is written asynchronously: a synchronous write per line was a syscall on every request's
  // path (about a tenth of the API's CPU at full load); lines logged while a write is under way go
  // out together in the next one. pino flushes what is pending synchronously when the process exits,
  // crash or not, so no line is lost.
  const logger = pino(options, opts.destination ?? pino.destination({ dest: 1, sync: false }));
  // pino applies `formatters.bindings` to the root's base only, not to a child's bindings: a child
  // (and its children, which inherit this method) censors its bindings on the way in.
  type Child = (this: unknown, bindings: pino.Bindings, options?: unknown) => unknown;
  const child = logger.child as unknown as Child;
  const censoringChild: Child = function (this: unknown, bindings, childOptions) {
    return child.call(this, redactSecrets(bindings), childOptions);
  };
  logger.child = censoringChild as unknown as Logger['child'];
  return logger;
}
