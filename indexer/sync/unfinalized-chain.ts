import { FatalIndexerError } from '../errors';
import type { LightBlock } from '../rpc/rpc';

/**
 * A stored chain window broke its invariant: a bug or a tampered table, never a chain event.
 * Fatal: writing on top of a window that does not link would hide the damage (a resync rewrites it).
 */
export class ChainInvariantError extends FatalIndexerError {
  readonly code = 'invariant_broken';

  constructor(message: string) {
    super(message);
    this.name = 'ChainInvariantError';
  }
}

/**
 * The local copy of the chain above the last finalized block, lowest first.
 *
 * INVARIANT: every stored block links to the one before it: `blocks[i].number ===
 * blocks[i-1].number + 1` and `blocks[i].parentHash === blocks[i-1].hash`. The window holds
 * the network's reorg window of blocks (not its confirmations); the lowest block (the base)
 * is the deepest point a reorg can be walked back to by parent hash. Older hashes survive as
 * sparse checkpoints (`indexer_checkpoints`), which repair deeper reorgs.
 *
 * Every method that changes the window keeps the invariant or throws before changing anything.
 */
export class UnfinalizedChain {
  private blocks: LightBlock[];

  constructor(blocks: readonly LightBlock[]) {
    UnfinalizedChain.assertLinked(blocks);
    this.blocks = [...blocks];
  }

  /** Throws unless `blocks` are consecutive and each names the previous one as its parent. */
  static assertLinked(blocks: readonly LightBlock[], after?: LightBlock): void {
    let prev = after;
    for (const b of blocks) {
      if (prev && (b.number !== prev.number + 1 || b.parentHash !== prev.hash)) {
        throw new ChainInvariantError(`block ${b.number} (${b.hash}) does not link to block ${prev.number} (${prev.hash})`);
      }
      prev = b;
    }
  }

  get isEmpty(): boolean {
    return this.blocks.length === 0;
  }

  /** The newest block indexed, or null before the first one. */
  get tip(): LightBlock | null {
    return this.blocks[this.blocks.length - 1] ?? null;
  }

  /** The oldest block kept: the deepest point a reorg can be walked back to. */
  get base(): LightBlock | null {
    return this.blocks[0] ?? null;
  }

  get length(): number {
    return this.blocks.length;
  }

  get(number: number): LightBlock | null {
    const base = this.blocks[0];
    if (!base) return null;
    return this.blocks[number - base.number] ?? null;
  }

  all(): readonly LightBlock[] {
    return this.blocks;
  }

  /** Adds blocks on top of the tip; they must extend it. */
  append(blocks: readonly LightBlock[]): void {
    UnfinalizedChain.assertLinked(blocks, this.tip ?? undefined);
    this.blocks.push(...blocks);
  }

  /** Drops every block above `ancestor` (which must be in the window); returns them, lowest first. */
  rewindTo(ancestor: LightBlock): LightBlock[] {
    const local = this.get(ancestor.number);
    if (!local || local.hash !== ancestor.hash) throw new ChainInvariantError(`rewind target ${ancestor.number} (${ancestor.hash}) is not in the window`);
    const at = ancestor.number - this.blocks[0].number;
    return this.blocks.splice(at + 1);
  }

  /** Forgets blocks below `number`, which becomes the new base. */
  finalizeTo(number: number): LightBlock[] {
    const base = this.blocks[0];
    if (!base || number <= base.number) return [];
    const keepFrom = Math.min(number - base.number, this.blocks.length - 1);
    return this.blocks.splice(0, keepFrom);
  }

  /** Replaces the window with linked blocks (after a backfill range, or a rollback below the window). */
  resetTo(blocks: LightBlock | readonly LightBlock[]): void {
    const next = Array.isArray(blocks) ? [...(blocks as readonly LightBlock[])] : [blocks as LightBlock];
    UnfinalizedChain.assertLinked(next);
    this.blocks = next;
  }

  /** Empties the window (a rollback to before genesis). */
  clear(): void {
    this.blocks = [];
  }
}
