import { startChangeset, type Changeset } from '../store/derived-tables';
import type { RowPosition } from '../types';
import type { DecodedLog } from './decode-log';
import type { IndexedEvent } from './indexed-event';
import { INDEXED_EVENTS } from './indexed-events';

function position(log: DecodedLog, timestamps: ReadonlyMap<number, number>): RowPosition {
  const { meta } = log;
  const ts = timestamps.get(meta.blockNumber);
  if (ts === undefined) throw new Error(`no timestamp for block ${meta.blockNumber}`);
  return { block_number: meta.blockNumber, block_hash: meta.blockHash, block_timestamp: ts, log_index: meta.logIndex, tx_hash: meta.txHash };
}

/**
 * Everything a batch of decoded logs changes. Pure: the same logs (in chain order) always give
 * the same changeset. Each log goes through its event's projector (its `INDEXED_EVENTS` entry);
 * each table then combines the rows it received (balances into one net delta per holder, pair
 * and id, orders into their final state), so a batch writes each row once however many logs
 * touched it.
 */
export function handleLogs(logs: readonly DecodedLog[], timestamps: ReadonlyMap<number, number>): Changeset {
  const changes = startChangeset();
  // Indexed loops: this runs for every log of a backfill, and iterators cost here.
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i];
    const rows = (INDEXED_EVENTS[log.kind] as IndexedEvent<string, object>).project(log, position(log, timestamps));
    for (let j = 0; j < rows.length; j++) changes.add(rows[j]);
  }
  return changes.done();
}
