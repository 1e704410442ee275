import type { Express } from 'express';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/** The counters behind the Grafana dashboard's quote-rate panel, as /metrics shows them. */
describe('quote metrics on /metrics', () => {
  let env: TestEnv;
  let app: Express;

  const sample = async (line: RegExp) => Number(line.exec((await request(app).get('/metrics').expect(200)).text)?.[1] ?? 'NaN');

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(() => env.close());

  it('counts a created quote once: its idempotent replay and a refused create are not counted', async () => {
    const body = quoteBody(randomAddress(), STRATEGY_ROWS[0].legs);
    await request(app).post('/api/quote').set('Idempotency-Key', 'metrics-once-00000000000000000000000').send(body).expect(201);
    const replay = await request(app).post('/api/quote').set('Idempotency-Key', 'metrics-once-00000000000000000000000').send(body).expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await request(app).post('/api/quote').send({}).expect(400);
    expect(await sample(/^rfq_quotes_created_total\{kind="rfq"\} (\d+)$/m)).toBe(1);
  });
});
