import { handleLogs } from '../../chain-events/handle-logs';
import type { RealtimeEvent } from '../realtime-sync';
import type { TailerContext } from '../tailer-context';
import { rollBack } from './roll-back';
import { advanceCursor, type TailerKit } from './tailer-kit';

/**
 * Writes one event of realtime sync: a block's logs (one transaction with the cursor and the
 * window, then published), a reorg (rolled back to the ancestor) or a finalized block (the window
 * and the checkpoints trimmed below it).
 */
export async function applyRealtime(kit: TailerKit, ctx: TailerContext, ev: RealtimeEvent): Promise<void> {
  const { deps, chainId, config, logger, metrics } = kit;
  if (ev.type === 'block') {
    const changes = handleLogs(ev.logs, ev.timestamps);
    const to = ev.blocks[ev.blocks.length - 1];
    const { filled, crossings, fades } = await deps.store.commit({
      chainId,
      contractSet: ctx.sources.contractSet,
      expected: ctx.cursor,
      cursor: to,
      changes,
      window: { append: ev.blocks },
    });
    ctx.chain.append(ev.blocks);
    for (const p of ev.created) ctx.sources.pairs.add(p);
    advanceCursor(kit, ctx, to);
    metrics.logsIndexed?.inc({ ...metrics.labels, mode: 'realtime' }, ev.logs.length);
    await deps.publisher.settled(chainId, filled);
    await deps.publisher.explore(chainId, changes);
    await deps.publisher.loans(chainId, changes, crossings);
    await deps.publisher.fades(chainId, fades);
  } else if (ev.type === 'reorg') {
    await rollBack(kit, ctx, ev.ancestor, { kind: 'reorg', depth: ev.depth, orphanedTip: ctx.cursor.block_number });
    metrics.reorgs?.inc(metrics.labels);
    logger.warn({ ancestor: ev.ancestor?.number ?? -1, depth: ev.depth, orphaned_in_window: ev.orphaned.length }, 'reorg rolled back');
  } else {
    await deps.store.finalize(chainId, ev.block.number, ctx.cursor.block_number - config.INDEXER_REORG_MAX_DEPTH);
    ctx.chain.finalizeTo(ev.block.number);
  }
}
