import { hostname } from 'node:os';
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Config, Role } from '../config';

/** Every role's service name starts with it: `options-rfq-api`, `options-rfq-workers`, ... */
export const SERVICE_NAMESPACE = 'options-rfq';

export type TracingConfig = Pick<Config, 'ROLES' | 'TRACING_OTLP_URL' | 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'TRACING_SAMPLE_RATIO'>;

/** Where spans go: TRACING_OTLP_URL as given, else the standard base endpoint's `/v1/traces`; null: tracing is off. */
export function tracesEndpoint(config: Pick<TracingConfig, 'TRACING_OTLP_URL' | 'OTEL_EXPORTER_OTLP_ENDPOINT'>): string | null {
  if (config.TRACING_OTLP_URL !== undefined) return config.TRACING_OTLP_URL;
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined) return `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return null;
}

/**
 * The process's OpenTelemetry traces, when an endpoint is configured. One tracer provider per
 * role the process runs, so each role's spans carry its own service name even when one process
 * runs all four (`npm start`); they share the AsyncLocalStorage context and the W3C propagator,
 * so a span of one role is the parent of the next role's, in this process or across Redis.
 * Without an endpoint nothing is loaded, built or registered: `Tracing.start` answers null, and
 * every instrumented place, handed no tracer, runs its work without a span.
 */
export class Tracing {
  private constructor(private readonly providers: ReadonlyMap<Role, NodeTracerProvider>) {}

  static async start(config: TracingConfig): Promise<Tracing | null> {
    const url = tracesEndpoint(config);
    if (url === null) return null;
    // Loaded only now: the SDK and the exporter would cost a process that does not trace a few
    // hundred milliseconds of start-up and some memory.
    const [
      { OTLPTraceExporter },
      { resourceFromAttributes },
      { BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler },
      { ATTR_SERVICE_NAME },
    ] = await Promise.all([
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/semantic-conventions'),
    ]);
    const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(config.TRACING_SAMPLE_RATIO) });
    const instance = `${hostname()}:${process.pid}`;
    const providers = new Map<Role, NodeTracerProvider>();
    for (const role of config.ROLES) {
      const resource = resourceFromAttributes({
        [ATTR_SERVICE_NAME]: `${SERVICE_NAMESPACE}-${role}`,
        'service.namespace': SERVICE_NAMESPACE,
        'service.instance.id': instance,
      });
      // Spans are exported in batches off the request path; a collector that is down costs dropped spans, never a request.
      providers.set(role, new NodeTracerProvider({ resource, sampler, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))] }));
    }
    // One registration installs what the providers share: the context manager and the propagator.
    providers.get(config.ROLES[0])?.register();
    return new Tracing(providers);
  }

  /** The tracer of a role this process runs; undefined for another role (its spans are not ours to make). */
  tracer(role: Role): Tracer | undefined {
    return this.providers.get(role)?.getTracer(SERVICE_NAMESPACE);
  }

  /** Exports what is pending, then unregisters, so nothing traces after the process drained. */
  async shutdown(): Promise<void> {
    await Promise.allSettled([...this.providers.values()].map((p) => p.shutdown()));
    trace.disable();
    context.disable();
    propagation.disable();
  }
}

/** The tracer of `role` from a process's tracing, if it traces at all. */
export function roleTracer(tracing: Tracing | null | undefined, role: Role): Tracer | undefined {
  return tracing?.tracer(role);
}
