import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exported span as a test reads it: ids in hex, the resource's service name, attributes flattened. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** Start and end, unix epoch milliseconds with the nanoseconds kept as the fraction (benchmarks line spans up with their own clocks). */
  startMs: number;
  endMs: number;
}

export interface OtlpReceiver {
  /** The traces endpoint to give a process as TRACING_OTLP_URL. */
  url: string;
  /** Every span received so far, in arrival order. */
  spans: ReceivedSpan[];
  /** Content types of the export requests received (the exporter's choice of encoding). */
  contentTypes: string[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
        attributes?: KeyValue[];
      }[];
    }[];
  }[];
}

/** OTLP JSON's nanosecond timestamps (a decimal string, past 2^53) as epoch milliseconds. */
const nanosToMs = (n: string | number) => {
  const ns = BigInt(n);
  return Number(ns / 1_000_000n) + Number(ns % 1_000_000n) / 1e6;
};

const flatten = (kvs: KeyValue[] = []) =>
  Object.fromEntries(
    kvs.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? '')),
    ]),
  );

/**
 * An OTLP/HTTP collector in the test process: accepts POST /v1/traces in the JSON encoding (the
 * HTTP exporter's), answers 200 as a collector does, and keeps every span. A protobuf body is
 * refused with 415, so a test notices an exporter that changed its encoding.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      contentTypes.push(type);
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.startsWith('application/json')) {
        res.writeHead(req.url === '/v1/traces' ? 415 : 404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
      for (const rs of body.resourceSpans ?? []) {
        const service = String(flatten(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: flatten(s.attributes),
              startMs: nanosToMs(s.startTimeUnixNano),
              endMs: nanosToMs(s.endTimeUnixNano),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
