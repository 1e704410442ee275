import type { Hex, RpcLog } from '../rpc/rpc';
import type { LogMeta } from '../types';
import { checksum } from './log-words';

/** Where a log sits: its emitter checksummed, its hashes lower-case. */
export function logMeta(log: RpcLog): LogMeta {
  return {
    address: checksum(log.address.toLowerCase()),
    blockNumber: Number(log.blockNumber),
    blockHash: log.blockHash.toLowerCase() as Hex,
    logIndex: Number(log.logIndex),
    txHash: log.transactionHash.toLowerCase() as Hex,
  };
}
