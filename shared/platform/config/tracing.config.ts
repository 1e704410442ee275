import { z } from 'zod';

const httpUrl = z
  .string()
  .refine((v) => {
    try {
      return ['http:', 'https:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL')
  .optional();

/**
 * OpenTelemetry traces (docs/TRACING.md): off unless an OTLP endpoint is set, and then each role
 * exports its spans there over OTLP/HTTP (JSON).
 */
export const tracingEnv = {
  /** The OTLP/HTTP traces endpoint, whole (`http://collector:4318/v1/traces`); wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  TRACING_OTLP_URL: httpUrl,
  /** OpenTelemetry's standard base endpoint (`http://collector:4318`); `/v1/traces` is appended. */
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
  /** Share of the traces this service starts that are kept; a trace begun upstream follows its parent's decision. */
  TRACING_SAMPLE_RATIO: z.coerce.number().min(0).max(1).default(1),
};
