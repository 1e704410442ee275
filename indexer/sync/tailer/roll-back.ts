import type { RollbackPoint } from '../../publish/live-publisher';
import type { LightBlock } from '../../rpc/rpc';
import type { RollbackCause, RollbackEffects } from '../../store/indexer-store';
import { planResync } from '../resync';
import type { TailerContext } from '../tailer-context';
import { advanceCursor, type TailerKit } from './tailer-kit';

/**
 * Undoes everything above `ancestor` (a reorg's common ancestor, or the block before an
 * operator's resync point; null: everything), then tells clients what changed. The window is
 * rewound when the ancestor is in it, and otherwise restarts at the ancestor.
 */
export async function rollBack(kit: TailerKit, ctx: TailerContext, ancestor: LightBlock | null, cause: RollbackCause): Promise<{ reopened: number }> {
  kit.rollbacks++;
  try {
    return await undoAbove(kit, ctx, ancestor, cause);
  } finally {
    kit.rollbacks++;
  }
}

async function undoAbove(kit: TailerKit, ctx: TailerContext, ancestor: LightBlock | null, cause: RollbackCause): Promise<{ reopened: number }> {
  const { deps, chainId } = kit;
  const effects = await deps.store.rollback({ chainId, contractSet: ctx.sources.contractSet, expected: ctx.cursor, ancestor, cause });
  if (ancestor && ctx.chain.get(ancestor.number)?.hash === ancestor.hash) ctx.chain.rewindTo(ancestor);
  else if (ancestor) ctx.chain.resetTo(ancestor);
  else ctx.chain.clear();
  // Pairs created in orphaned blocks are gone from the table; watch exactly what remains.
  const kept = await deps.store.load(chainId, ctx.sources.contractSet);
  ctx.sources.pairs.clear();
  for (const p of kept.pairs) ctx.sources.pairs.add(p);
  if (ancestor) advanceCursor(kit, ctx, ancestor);
  else {
    ctx.cursor = { block_number: -1, block_hash: null, block_timestamp: null };
    kit.status.update({ cursor: -1, cursor_timestamp: null });
  }
  const point: RollbackPoint = {
    number: ancestor?.number ?? -1,
    hash: ancestor?.hash ?? null,
    key: cause.kind === 'reorg' ? (ancestor?.hash ?? 'genesis') : `resync-${cause.requestIds[0]}`,
  };
  await tell(kit, effects, point);
  return { reopened: effects.reopened.length };
}

/** Tells clients what a rollback (or a start over) undid: reopened quotes, Explore pairs, loans. */
export async function tell(kit: TailerKit, effects: RollbackEffects, point: RollbackPoint): Promise<void> {
  const { deps, chainId } = kit;
  await deps.publisher.reopened(chainId, effects.reopened, point);
  await deps.publisher.exploreReorg(chainId, effects.pairs, point);
  if (effects.loans) await deps.publisher.loansReorg(chainId, point);
}

/** Serves pending resync requests; true when it rolled the network back. */
export async function serveResync(kit: TailerKit, ctx: TailerContext): Promise<boolean> {
  const { deps, chainId, logger } = kit;
  const plan = await planResync(deps.store, kit.rpc, chainId, ctx.cursor.block_number);
  if (!plan) return false;
  if (plan.kind === 'nothing') {
    const outcome = `nothing to roll back: indexed up to block ${ctx.cursor.block_number}, below ${plan.fromBlock}`;
    await deps.store.closeResync(plan.requestIds, ctx.cursor.block_number, outcome);
    logger.info({ requests: plan.requestIds, from_block: plan.fromBlock }, outcome);
    return false;
  }
  const to = plan.ancestor?.number ?? -1;
  const outcome = `rolled back to block ${to}; re-syncing from block ${to + 1}`;
  const { reopened } = await rollBack(kit, ctx, plan.ancestor, { kind: 'resync', requestIds: plan.requestIds, outcome });
  logger.warn({ requests: plan.requestIds, from_block: plan.fromBlock, reopened_quotes: reopened }, 'operator resync: rolled back');
  return true;
}
