import type { WorkerContext } from './worker-context';

/**
 * Why a sweep ran, which is also why it found work to redo:
 * - `start`: the first scheduled sweep of this workers process. What it finds fell due while no
 *   workers process ran (the service was stopped) or while this one was starting, or its job was
 *   lost: after a restart, quotes whose window ended meanwhile are expired and their results
 *   published here. Expected, so logged at `info`.
 * - `scheduled`: a later scheduled sweep, the backstop for jobs that were lost or are late.
 * - `recovery`: Redis or Postgres came back, or Redis lost its data (workers/recovery-sweep.ts,
 *   workers/redis-loss.ts): what the outage lost.
 */
export type SweepReason = 'start' | 'scheduled' | 'recovery';

const WHY: Record<SweepReason, string> = {
  start: 'the first sweep since this workers process started: work that fell due while no workers process ran, or whose job was lost',
  scheduled: 'the periodic backstop: jobs that were lost or are late',
  recovery: 'Redis or Postgres came back, or Redis lost its data: what the outage lost',
};

export type SweptKind = 'quote' | 'order';

/** The kinds of sweep each workers context has run on its schedule at least once. */
const swept = new WeakMap<WorkerContext, Set<SweptKind>>();

/** The reason of a scheduled sweep: `start` for the first of its kind in this workers context, `scheduled` after. */
export function scheduledReason(ctx: WorkerContext, kind: SweptKind): SweepReason {
  const kinds = swept.get(ctx) ?? new Set<SweptKind>();
  swept.set(ctx, kinds);
  if (kinds.has(kind)) return 'scheduled';
  kinds.add(kind);
  return 'start';
}

/**
 * One line per sweep that redid anything: how many items of each step (`expire=3
 * publish_result=3`), how many failed and were left for the next sweep, and why the sweep ran.
 */
export function reportSweep(ctx: WorkerContext, kind: SweptKind, redone: Record<string, number>, opts: { reason: SweepReason; skipped: number }): void {
  const counts = Object.entries(redone).filter(([, n]) => n > 0);
  if (counts.length === 0) return;
  const fields = { sweep: kind, reason: opts.reason, redone: Object.fromEntries(counts), skipped: opts.skipped };
  const msg = `${kind} sweep redid ${counts.map(([step, n]) => `${step}=${n}`).join(' ')}${opts.skipped > 0 ? ` (${opts.skipped} failed, left for the next sweep)` : ''}: ${WHY[opts.reason]}`;
  if (opts.reason === 'start') ctx.logger.info(fields, msg);
  else ctx.logger.warn(fields, msg);
}
