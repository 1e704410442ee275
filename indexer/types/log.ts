import type { Hex } from '../rpc/rpc';

/** Where a log sits on the chain; every derived row carries it. */
export interface LogMeta {
  /** Checksummed emitter. */
  address: Hex;
  blockNumber: number;
  blockHash: Hex;
  logIndex: number;
  txHash: Hex;
}

/** Which contract may emit what: a log from any other emitter is not ours and is dropped. */
export type EmitterRole = 'factory' | 'mothership' | 'pair' | 'bondVault' | 'lending_market' | 'price_oracle';

/** A decoded log of event `K`: its arguments `A` (addresses checksummed, hashes lower-case) and where it sits. */
export type Decoded<K extends string, A> = { kind: K; meta: LogMeta } & A;
