export { Tracing, roleTracer, tracesEndpoint, SERVICE_NAMESPACE } from './tracing';
export type { TracingConfig } from './tracing';
export { currentTraceparent, traceIdOf, traceparentContext, inSpan, markFailed, madeByTracer, step, HTTP, MESSAGING } from './spans';
