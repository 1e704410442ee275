import { currentTraceparent } from '../tracing';

/**
 * The job data field a job's trace context travels in: the W3C `traceparent` of the span that
 * enqueued it. Added by JobQueue beside the validated payload, taken off by the worker host
 * before the payload is parsed, so no job schema and no handler ever sees it.
 */
export const TRACE_FIELD = '_trace';

/** `data` with the active span's traceparent, when a span is active and the payload is an object; else `data` itself. */
export function withTrace(data: unknown): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const traceparent = currentTraceparent();
  return traceparent === undefined ? data : { ...data, [TRACE_FIELD]: traceparent };
}

/** A job's data split into its payload and the traceparent it carried (a string, or nothing). */
export function takeTrace(data: unknown): { payload: unknown; traceparent: string | undefined } {
  if (data === null || typeof data !== 'object' || !(TRACE_FIELD in data)) return { payload: data, traceparent: undefined };
  const { [TRACE_FIELD]: carried, ...payload } = data as Record<string, unknown>;
  return { payload, traceparent: typeof carried === 'string' ? carried : undefined };
}
