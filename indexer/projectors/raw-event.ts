import type { EventRow, LogMeta, RowPosition } from '../types';

/** A log's arguments as JSON: big integers become decimal strings. */
function eventArgs(log: object): EventRow['args'] {
  const out: EventRow['args'] = {};
  const fields = log as Record<string, unknown>;
  for (const k in fields) {
    if (k === 'kind' || k === 'meta') continue;
    const v = fields[k];
    out[k] = typeof v === 'bigint' ? v.toString() : (v as string | boolean | number[]);
  }
  return out;
}

/**
 * The log kept as it was read (`indexer_events`, arguments under the ABI's names): explore
 * feeds and the order book's rollback read it. Every event but the ERC-6909 transfers, which
 * have their own table, keeps one.
 */
export function rawEvent(log: { kind: string; meta: LogMeta }, at: RowPosition): { table: 'indexer_events'; row: EventRow } {
  return {
    table: 'indexer_events',
    row: {
      ...at,
      address: log.meta.address,
      event_name: log.kind,
      args: eventArgs(log),
    },
  };
}
