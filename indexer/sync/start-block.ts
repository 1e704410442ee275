import type { Logger } from '../../shared/platform/logging';
import type { Hex, Rpc } from '../rpc/rpc';

/**
 * The first block worth reading: the earliest block at which the watched contracts have code
 * (a binary search over `eth_getCode`, ~log2(head) calls). Nothing they emit can be older.
 * A node without historical state cannot answer; then the backfill starts at genesis, which is
 * slower but never misses anything.
 */
export async function findStartBlock(rpc: Rpc, addresses: Hex[], head: number, logger: Logger): Promise<number> {
  if (addresses.length === 0) return head;
  try {
    let start = head;
    for (const address of addresses) {
      if (!hasCode(await rpc.getCode(address, head))) {
        logger.warn({ address }, 'watched contract has no code at the head; it is watched from now on');
        continue;
      }
      let lo = 0;
      let hi = head;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (hasCode(await rpc.getCode(address, mid))) hi = mid;
        else lo = mid + 1;
      }
      start = Math.min(start, lo);
    }
    return start;
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'cannot find the deployment block (no historical state?); backfilling from genesis');
    return 0;
  }
}

const hasCode = (code: Hex) => code !== '0x' && code !== '0x0';
