import { BOND_EVENTS } from './bond-events';
import { eventTable } from './indexed-event';
import { LOAN_EVENTS } from './loan-events';
import { MOTHERSHIP_EVENTS } from './mothership-events';
import { ORDER_BOOK_EVENTS } from './order-book-events';

/** The families of the table, one file each, by the contract that emits them. */
export const EVENT_FAMILIES = { ORDER_BOOK_EVENTS, MOTHERSHIP_EVENTS, BOND_EVENTS, LOAN_EVENTS } as const;

/**
 * Every event the indexer reads, each declared once: ABI item, emitter, decoder, projector and
 * the derived tables a rollback must clear for it. Decoding, the `eth_getLogs` topic filter,
 * projection and the explore feeds all read this table; adding an event is one entry in its
 * emitter's family (plus a migration when its rows need a table of their own: see docs/INDEXER.md).
 */
export const INDEXED_EVENTS = eventTable({ ...ORDER_BOOK_EVENTS, ...MOTHERSHIP_EVENTS, ...BOND_EVENTS, ...LOAN_EVENTS });

/** The name of an event the indexer reads. */
export type EventKind = keyof typeof INDEXED_EVENTS;

/** Whether `name` is an event the indexer reads. */
export const isEventKind = (name: string): name is EventKind => Object.prototype.hasOwnProperty.call(INDEXED_EVENTS, name);
