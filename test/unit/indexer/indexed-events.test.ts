import { toEventSelector } from 'viem';
import { decodeLog, EVENT_SELECTORS, type DecodedLog } from '../../../indexer/decode/decode-log';
import type { IndexedEvent } from '../../../indexer/chain-events/indexed-event';
import { INDEXED_EVENTS } from '../../../indexer/chain-events/indexed-events';
import { handleLogs } from '../../../indexer/projectors/handle-logs';
import { DERIVED_TABLES } from '../../../indexer/store/derived-tables';
import { encodeLog, fixedArgs } from './abi-logs';

/**
 * INDEXED_EVENTS is the one declaration of an indexed event: these checks fail when an entry
 * disagrees with its ABI, names a table no rollback clears, or projects rows into a table it
 * does not declare (whose rows a rollback would then not be known to cover).
 */
const EMITTER = '0x2222222222222222222222222222222222222222';
const entries = Object.entries(INDEXED_EVENTS).map(([kind, e]) => [kind, e as IndexedEvent<string, object>] as const);
const derived = new Set<string>(DERIVED_TABLES.map((t) => t.table));
const at = { block_number: 16, block_hash: `0x${'ab'.repeat(32)}`, block_timestamp: 1_700_000_000, log_index: 3, tx_hash: `0x${'cd'.repeat(32)}` } as const;

/** A log of `kind` as the decoder gives it, with arguments fixed by the ABI. */
function sample(kind: string, e: IndexedEvent<string, object>): DecodedLog {
  const decoded = decodeLog(encodeLog(e.abi, fixedArgs(e.abi), { address: EMITTER }), () => e.emitter);
  if (!decoded || decoded.kind !== kind) throw new Error(`${kind}: the sample log does not decode`);
  return decoded;
}

describe('the indexed-event table', () => {
  it.each(entries)('%s is keyed by its ABI name and filtered on its selector', (kind, e) => {
    expect(e.abi.name).toBe(kind);
    expect(EVENT_SELECTORS).toContain(toEventSelector(e.abi));
  });

  it('asks eth_getLogs for exactly the events it declares', () => {
    expect(new Set(EVENT_SELECTORS).size).toBe(entries.length);
  });

  it.each(entries)('%s names only tables a rollback clears, each once', (_kind, e) => {
    expect(e.tables.filter((t) => !derived.has(t))).toEqual([]);
    expect(new Set(e.tables).size).toBe(e.tables.length);
  });

  it.each(entries)('%s projects rows only into the tables it declares', (kind, e) => {
    const rows = e.project(sample(kind, e), at);
    expect(rows.length).toBeGreaterThan(0);
    expect([...new Set(rows.map((r) => r.table))].filter((t) => !e.tables.includes(t))).toEqual([]);
  });

  it.each(entries)('%s projects as a pure function: the same log gives the same rows and is left as it was', (kind, e) => {
    const log = sample(kind, e);
    const copy = structuredClone(log);
    expect(e.project(log, at)).toEqual(e.project(log, at));
    expect(handleLogs([log, log], new Map([[16, at.block_timestamp]]))).toEqual(handleLogs([copy, copy], new Map([[16, at.block_timestamp]])));
    expect(log).toEqual(copy);
  });

  it('feeds every table that takes projected rows from some event', () => {
    const named = new Set(entries.flatMap(([, e]) => e.tables));
    const projected = DERIVED_TABLES.filter((t) => 'collect' in t).map((t) => t.table);
    expect(projected.filter((t) => !named.has(t))).toEqual([]);
  });
});
