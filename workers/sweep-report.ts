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

/** One step of a sweep: its name (as the sweep's log line counts it), the ids found overdue, and what redoes one. */
export type SweepStep = readonly [step: string, ids: readonly string[], run: (id: string) => Promise<unknown>];

/**
 * Every sweeper's loop: redoes each step's items in order, each on its own (one that fails is
 * logged and left for the next sweep, the rest still get done), reports the sweep (reportSweep)
 * and answers how many items of each step it redid.
 */
export async function redoSteps(ctx: WorkerContext, kind: SweptKind, steps: readonly SweepStep[], reason: SweepReason): Promise<Record<string, number>> {
  const redone: Record<string, number> = {};
  let skipped = 0;
  for (const [step, ids, run] of steps) {
    if (ids.length > 0) redone[step] = ids.length;
    for (const id of ids) {
      try {
        await run(id);
      } catch (err) {
        skipped++;
        ctx.logger.warn({ sweep: kind, step, id, err: (err as Error).message }, 'sweeper skipped an item that failed; the next sweep tries it again');
      }
    }
  }
  reportSweep(ctx, kind, redone, { reason, skipped });
  return redone;
}
