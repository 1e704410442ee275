import { QueueEvents } from 'bullmq';
import { EventPublisher, topics } from '../../../shared/events';
import { quoteExpireJob, QUOTES_QUEUE } from '../../../shared/quotes';
import { bullPrefix, closeRedis, createBullConnection, type Redis } from '../../../shared/platform/redis';
import { eventually, topicEvents } from '../../support/events';
import { startWorkers, type Workers } from '../../support/workers';
import { jobFinished } from './job-events';
import { mineBlocks, openHarness, quoteState, runIndexer, settleQuote, waitFor, type Harness } from '../indexer/harness';

/**
 * A quote settled on chain is announced once, by the indexer's settlement path. The expiry job
 * that then runs at the window's end must not announce a second outcome to the taker.
 */
describe('a fill followed by the expiry job', () => {
  let h: Harness;
  let ix: Awaited<ReturnType<typeof runIndexer>>;
  let workers: Workers;
  let conn: Redis;
  let events: QueueEvents;

  beforeAll(async () => {
    h = await openHarness();
    await h.register({ confirmations: 0 });
    ix = await runIndexer(h.env);
    conn = createBullConnection(h.env.config);
    events = new QueueEvents(QUOTES_QUEUE, { connection: conn, prefix: bullPrefix(h.env.config.REDIS_PREFIX, QUOTES_QUEUE) });
    await events.waitUntilReady();
    workers = startWorkers(h.env, { concurrency: 2 });
  }, 60_000);

  afterAll(async () => {
    await workers?.close();
    await events?.close();
    if (conn) await closeRedis(conn);
    await ix?.stop();
    await h?.close();
  });

  it('the taker stream carries exactly one rfq_result', async () => {
    const { quoteId, streamHash } = await settleQuote(h, { maker: 3, taker: 4 });
    await mineBlocks(h.chain, 1);
    await waitFor(
      'quote filled',
      () => quoteState(h, quoteId),
      (q) => q.state === 'filled',
    );
    const stream = topics.rfqStream(streamHash);
    await waitFor(
      'the fill result',
      () => topicEvents(h.env, stream),
      (e) => e.some((x) => x.event === 'rfq_result'),
    );

    // The window ends: the expiry job, delayed until now, runs.
    await h.env.db.query(`UPDATE quotes SET expires_at = now() - interval '1 second' WHERE id = $1`, [quoteId]);
    const jobId = quoteExpireJob.jobId({ quote_id: quoteId });
    const done = jobFinished(events, jobId);
    await h.env.queue.enqueue(quoteExpireJob, { quote_id: quoteId });
    await done;

    // Sentinel: published after the job finished, so once it is in the history, so is anything the job sent.
    await new EventPublisher({ redis: h.env.redis, config: h.env.config }).publish(stream, 'rfq_offer', { quote_id: 'sentinel' });
    const seen = await eventually(
      () => topicEvents(h.env, stream),
      (e) => e.some((x) => x.payload.quote_id === 'sentinel'),
    );
    expect(seen.filter((e) => e.event === 'rfq_result').map((e) => e.payload.state)).toEqual(['filled']);
    expect((await quoteState(h, quoteId)).state).toBe('filled');
  }, 60_000);
});
