import { toEventSelector } from 'viem';
import { logMeta } from '../decode/log-meta';
import type { Hex, RpcLog } from '../rpc/rpc';
import type { Decoded, EmitterRole } from '../types';
import type { IndexedEvent } from './indexed-event';
import { INDEXED_EVENTS, type EventKind } from './indexed-events';

type EventTable = typeof INDEXED_EVENTS;

/** A decoded log of any event of INDEXED_EVENTS: its kind, position and arguments. */
export type DecodedLog = { [K in EventKind]: EventTable[K] extends IndexedEvent<K, infer A> ? Decoded<K, A> : never }[EventKind];

const BY_SELECTOR = new Map<string, { kind: EventKind; spec: IndexedEvent<EventKind, object> }>(
  (Object.keys(INDEXED_EVENTS) as EventKind[]).map((kind) => {
    const spec = INDEXED_EVENTS[kind] as IndexedEvent<EventKind, object>;
    return [toEventSelector(spec.abi), { kind, spec }];
  }),
);

/** topic0 of every event the indexer reads: the `eth_getLogs` topic filter. */
export const EVENT_SELECTORS: Hex[] = [...BY_SELECTOR.keys()] as Hex[];

/** topic0 of the factory's pair creation, which adds a contract to watch. */
export const PAIR_CREATED_SELECTOR = toEventSelector(INDEXED_EVENTS.PairCreated.abi);

/**
 * Decodes one log, or returns null when it is not an event we read or its emitter does not
 * play the role that event belongs to (`roleOf` says which role an address plays).
 */
export function decodeLog(log: RpcLog, roleOf: (address: string) => EmitterRole | null): DecodedLog | null {
  const found = BY_SELECTOR.get(log.topics[0]?.toLowerCase() ?? '');
  if (!found || roleOf(log.address.toLowerCase()) !== found.spec.emitter) return null;
  const meta = logMeta(log);
  return { kind: found.kind, meta, ...found.spec.decode(log) } as DecodedLog;
}
