import { topics } from '../../shared/events';
import { hashStreamToken, quotesSweepJob } from '../../shared/quotes';
import { NetworksService } from '../../shared/networks';
import { quoteHandlers } from '../../workers/quotes/quote.handlers';
import { buildWorkerContext } from '../../workers/worker-context';
import { topicEvents } from '../support/events';
import { networkFile, randomAddress } from '../support/fixtures';
import { buildApp, request } from '../support/http';
import { quoteBody, STRATEGY_ROWS } from '../support/quotes';
import { createTestEnv, type TestEnv } from '../support/test-env';

/**
 * A close commits before its rfq_result is published. What the fault suite found in between (a
 * worker killed there, a fill stored while Redis was down) leaves a closed quote whose taker is
 * never told; the sweeper must publish it, once.
 */
describe('sweeper: results of closed quotes that were never published', () => {
  let env: TestEnv;
  let app: ReturnType<typeof buildApp>['app'];
  const sweep = () => {
    const handler = quoteHandlers.find((h) => h.spec === quotesSweepJob)!;
    return handler.handle(
      {},
      buildWorkerContext(env, async () => []),
      { jobId: 'quotes-sweep', attempt: 1 },
    );
  };
  const results = async (token: string) => (await topicEvents(env, topics.rfqStream(hashStreamToken(token)))).filter((e) => e.event === 'rfq_result');

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(() => env.close());

  it('publishes the result of a quote closed without one, marks it, and does not send it again', async () => {
    const { body } = await request(app).post('/api/quote').send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs)).expect(201);
    // As a worker killed between its UPDATE and its publish leaves it: closed, nothing sent.
    await env.db.query(`UPDATE quotes SET state = 'expired', closed_at = now() - interval '10 seconds', announced_at = now() WHERE id = $1`, [body.quote.id]);
    expect(await results(body.stream_token)).toEqual([]);

    await sweep();
    const sent = await results(body.stream_token);
    expect(sent).toHaveLength(1);
    expect(sent[0].payload).toMatchObject({ quote_id: body.quote.id, state: 'expired' });
    const [row] = await env.db.query(`SELECT result_published_at FROM quotes WHERE id = $1`, [body.quote.id]);
    expect(row.result_published_at).toBeInstanceOf(Date);

    await sweep();
    expect(await results(body.stream_token)).toHaveLength(1);
  });

  it('leaves a quote closed moments ago to the job that closed it', async () => {
    const { body } = await request(app).post('/api/quote').send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs)).expect(201);
    await env.db.query(`UPDATE quotes SET state = 'expired', closed_at = now(), announced_at = now() WHERE id = $1`, [body.quote.id]);
    await sweep();
    expect(await results(body.stream_token)).toEqual([]);
  });
});
