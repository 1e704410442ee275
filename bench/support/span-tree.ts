import type { ReceivedSpan } from '../../test/support/otlp-receiver';

/** Spans by parent, so a bench can walk a trace from its root: `child(parent, name)` is the first child so named. */
export function spanTree(spans: readonly ReceivedSpan[]): {
  children: (parent: ReceivedSpan) => readonly ReceivedSpan[];
  child: (parent: ReceivedSpan, name: string) => ReceivedSpan | undefined;
} {
  const byParent = new Map<string, ReceivedSpan[]>();
  for (const s of spans) {
    const list = byParent.get(s.parentSpanId);
    if (list) list.push(s);
    else byParent.set(s.parentSpanId, [s]);
  }
  const children = (parent: ReceivedSpan) => byParent.get(parent.spanId) ?? [];
  return { children, child: (parent, name) => children(parent).find((s) => s.name === name) };
}
