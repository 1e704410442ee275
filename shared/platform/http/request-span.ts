import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { HTTP, madeByTracer } from '../tracing';
import { routeOf } from './request-context';

/**
 * One SERVER span per `/api` request, active for everything the request does: its log lines
 * carry the trace id, and the jobs it enqueues carry the span to the workers. Named when the
 * response is done by the route that answered (`POST /api/quote`), never by the path, which may
 * hold an address. Every request starts a trace: a caller's `traceparent` header is ignored, so a
 * public client can neither pick trace ids nor force sampling. Probes, metrics and the
 * documentation are not traced (a probe every few seconds would be most of the traces).
 */
export function requestSpan(tracer: Tracer) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.path.startsWith('/api/')) return next();
    const span = madeByTracer(tracer.startSpan(req.method, { kind: SpanKind.SERVER, attributes: { [HTTP.method]: req.method } }, ROOT_CONTEXT), tracer);
    res.once('close', () => {
      // The id an error body quotes to an operator (set by requestContext, after this).
      span.setAttribute('rfq.request_id', req.id);
      const route = routeOf(req);
      if (route !== null) span.updateName(`${req.method} ${route}`).setAttribute(HTTP.route, route);
      if (res.writableFinished) {
        span.setAttribute(HTTP.status, res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      } else {
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'connection closed before the response was sent' });
      }
      span.end();
    });
    context.with(trace.setSpan(ROOT_CONTEXT, span), next);
  };
}
