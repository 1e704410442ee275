import { DutchRepository } from '../../shared/dutch';
import { DeadlineClock } from '../deadline-clock';
import type { WorkerContext } from '../worker-context';

/**
 * Advances Dutch auctions at their deadlines, in batches, without waiting for their jobs: it
 * sleeps until the earliest competition or exclusive window ends, then awards and opens every
 * auction due (DutchAuctioneer.advanceDue). BullMQ's delayed jobs fire tens of milliseconds
 * after their time even when idle, and under a thousand deadlines a second they queue; this
 * loop wakes within a millisecond or two and decides each instant's auctions in one transaction.
 * It is an accelerator only: every auction keeps its jobs (which then find their work done in one
 * read) and the sweeper, so a replica without a clock, or one that dies, loses nothing. Replicas
 * racing for the same instant split it by row locks; guarded statements decide. An auction whose
 * competition is shorter than the clock's look interval (250 ms) from its creation may be decided
 * by its own job instead (on time too, give or take BullMQ's delayed-job latency).
 */
export class DutchClock {
  private readonly loop: DeadlineClock;

  constructor(ctx: Pick<WorkerContext, 'db' | 'dutch' | 'logger'>, clock: () => number = Date.now) {
    const repo = new DutchRepository(ctx.db);
    this.loop = new DeadlineClock(
      {
        nextDeadline: (floor) => repo.nextDeadline(floor),
        runDue: () => ctx.dutch.advanceDue(),
        onFailure: (err) => ctx.logger.warn({ err: err.message }, 'Dutch clock pass failed; the jobs and the sweeper still advance the auctions'),
      },
      clock,
    );
  }

  start(): void {
    this.loop.start();
  }

  /** Stops after the pass under way (its transactions commit and publish, as a job's would). */
  close(): Promise<void> {
    return this.loop.close();
  }
}
