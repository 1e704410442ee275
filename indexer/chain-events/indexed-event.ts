import type { AbiEvent } from 'viem';
import type { RpcLog } from '../rpc/rpc';
import type { DerivedTableName, ProjectedRow } from '../store/derived-tables';
import type { Decoded, EmitterRole, RowPosition } from '../types';

/**
 * Everything the indexer knows about one event, declared once. The decoder, the topic filter,
 * the emitter check, the projection into rows and the reorg rollback all read this entry.
 */
export interface IndexedEvent<K extends string, A extends object> {
  /** Its ABI item (shared/chain/abis.ts); its name is the entry's key, its selector the topic filtered on. */
  abi: AbiEvent & { name: K };
  /** The only contract role whose logs of this event are read. */
  emitter: EmitterRole;
  /**
   * Every derived table its rows change, directly or through another table's write (a
   * settlement fills a quote): what a rollback must clear. Each must be in DERIVED_TABLES.
   */
  tables: readonly DerivedTableName[];
  /** The log's arguments; throws on a log whose layout does not match the ABI. */
  decode(log: RpcLog): A;
  /**
   * The rows the log adds, a pure function of the decoded log and its position: no I/O, no
   * state. Rows for tables that fold a batch (balances, orders) are combined by the table.
   */
  project(log: Decoded<K, A>, at: RowPosition): ProjectedRow[];
}

/** Declares one indexed event; infers the decoded argument type from its decoder. */
export const indexedEvent = <const K extends string, A extends object>(e: IndexedEvent<K, A>): IndexedEvent<K, A> => e;

/** Checks at compile time that each entry's key is its ABI item's name. */
export const eventTable = <R extends { [K in keyof R]: IndexedEvent<K & string, object> }>(r: R): R => r;
