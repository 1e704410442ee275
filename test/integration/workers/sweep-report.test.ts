import type { Express } from 'express';
import { createApp } from '../../../api/app';
import { NetworksService } from '../../../shared/networks';
import { JobQueue } from '../../../shared/platform/queue';
import { QuoteRepository, quotesSweepJob } from '../../../shared/quotes';
import { quoteHandlers } from '../../../workers/quotes/quote.handlers';
import { buildWorkerContext, type WorkerContext } from '../../../workers/worker-context';
import { networkFile, randomAddress } from '../../support/fixtures';
import { request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { captureLogs } from './log-capture';

/**
 * Issue 39: after `npm start` again, the first sweep logged `sweeper redid lost quote work` as a
 * warning with lists of ids, which read like an accident. Its line now says what it redid in
 * counts and why the sweep ran: the first sweep of a workers process picks up what fell due while
 * none ran (expected after a restart: info); a later one catching lost or late jobs is a warning.
 */
describe('the quote sweep line', () => {
  let env: TestEnv;
  let lostQueue: JobQueue;
  let app: Express;

  /** A quote through the API whose jobs went to a queue nobody consumes, its window ended half a minute ago. */
  async function overdueQuoteWithLostJobs(): Promise<string> {
    const { body } = await request(app)
      .post('/api/quote')
      .send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs, { expires_in: 60 }))
      .expect(201);
    const id = body.quote.id as string;
    await env.db.query(`UPDATE quotes SET expires_at = now() - interval '30 seconds', created_at = now() - interval '40 seconds' WHERE id = $1`, [id]);
    return id;
  }

  beforeAll(async () => {
    env = await createTestEnv();
    lostQueue = new JobQueue(env.redis, `${env.config.REDIS_PREFIX}lost:`);
    app = createApp({ ...env, queue: lostQueue }).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(async () => {
    await lostQueue.close();
    await env.close();
  });

  it('says the counts of each step and why: at the first scheduled sweep of a workers process (info), and after (warn)', async () => {
    const logs = captureLogs();
    const ctx: WorkerContext = buildWorkerContext({ ...env, logger: logs.logger }, async () => []);
    const sweep = quoteHandlers.find((h) => h.spec.name === quotesSweepJob.name)!;
    const run = () => sweep.handle({}, ctx, { jobId: quotesSweepJob.jobId({}), attempt: 1 });

    const first = [await overdueQuoteWithLostJobs(), await overdueQuoteWithLostJobs()];
    await run();
    const second = await overdueQuoteWithLostJobs();
    await run();
    // Nothing left to redo: no line at all.
    await run();

    const repo = new QuoteRepository(env.db);
    for (const id of [...first, second]) expect((await repo.findQuote(id))?.state).toBe('expired');
    const lines = logs.lines().filter((l) => l.sweep === 'quote');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        reason: 'start',
        redone: { announce: 2, expire: 2 },
        skipped: 0,
        msg: 'quote sweep redid announce=2 expire=2: the first sweep since this workers process started: work that fell due while no workers process ran, or whose job was lost',
      }),
      expect.objectContaining({
        level: 40,
        reason: 'scheduled',
        redone: { announce: 1, expire: 1 },
        skipped: 0,
        msg: 'quote sweep redid announce=1 expire=1: the periodic backstop: jobs that were lost or are late',
      }),
    ]);
    // Counts, not the ids of every item.
    for (const line of lines) expect(JSON.stringify(line)).not.toContain(first[0]);
  });
});
