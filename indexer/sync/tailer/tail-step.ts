import { BackfillReorgedError } from '../../errors';
import type { TailerContext } from '../tailer-context';
import { applyRealtime } from './apply-realtime';
import { serveResync } from './roll-back';
import type { TailerKit } from './tailer-kit';
import { writeBackfill } from './write-backfill';

/**
 * One pass of the loop: an operator's resync first, then the head; below the finalized block
 * the tip is checked and the range backfilled, at it the head is followed block by block.
 * True when there is more to do at once (no wait before the next pass).
 */
export async function tailStep(kit: TailerKit, ctx: TailerContext): Promise<boolean> {
  const { status, metrics, logger } = kit;
  if (await serveResync(kit, ctx)) return true;
  const head = await kit.rpc.latestBlock();
  kit.lastHead = Math.max(kit.lastHead, head.number);
  kit.heads.observedHead(head.number);
  status.update({ head: head.number, head_timestamp: head.timestamp });
  metrics.headGauge?.set(metrics.labels, head.number);
  const finalized = head.number - kit.network.confirmations;
  if (ctx.cursor.block_number < finalized) {
    // The tip may have been written while unfinalized and replaced since (say, during a restart).
    let reorged = false;
    for await (const ev of ctx.realtime.checkTip()) {
      await applyRealtime(kit, ctx, ev);
      reorged = true;
    }
    if (reorged) return true;
    try {
      await writeBackfill(kit, ctx, finalized, head.number - kit.reorgWindow + 1);
    } catch (err) {
      if (!(err instanceof BackfillReorgedError)) throw err;
      // The next pass finds the replaced tip (checkTip) and rolls back to where the forks meet.
      logger.warn({ err: err.message }, 'chain reorganised under the backfill');
    }
    return true;
  }
  status.update({ state: 'realtime' });
  let moved = false;
  for await (const ev of ctx.realtime.sync(head)) {
    await applyRealtime(kit, ctx, ev);
    if (ev.type !== 'finalize') moved = true;
  }
  return moved && ctx.cursor.block_number < head.number;
}
