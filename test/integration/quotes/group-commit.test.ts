import { randomBytes, randomUUID } from 'node:crypto';
import { GroupCommit } from '../../../shared/platform/db/group-commit';
import { QuoteRepository, type NewQuoteRow } from '../../../shared/quotes/quote.repository';
import type { QuoteLegRow } from '../../../shared/quotes/quote.types';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';

type NewQuote = { row: NewQuoteRow; legs: QuoteLegRow[] };

function newQuote(chainId: number, directions: number[]): NewQuote {
  const id = randomUUID();
  return {
    row: {
      id,
      chain_id: chainId,
      offer_format: 'package_only',
      polarity: 'b_is_buy',
      strategy: directions.length === 1 ? 'single' : 'custom',
      taker_address: randomAddress(),
      referrer: '0x0000000000000000000000000000000000000000',
      taker_salt: `0x${randomBytes(32).toString('hex')}`,
      taker_address_hash: `0x${randomBytes(32).toString('hex')}`,
      directions,
      pair_contract: randomAddress(),
      expiry_timestamp: 2_000_000_000,
      stream_token_hash: randomBytes(32).toString('hex'),
      expires_at: new Date(Date.now() + 60_000),
    },
    legs: directions.map((direction, idx) => ({
      idx,
      option_type: idx % 2 === 0 ? 0 : 1,
      structure: 0,
      direction: direction === 0 ? 0 : 1,
      strike_wad: `${3000 + idx}000000000000000000000`,
      amount: '1000000000000000000',
      start_exercise_timestamp: 0,
      expiry_timestamp: 2_000_000_000,
    })),
  };
}

describe('group commit of quote creates', () => {
  let env: TestEnv;
  let repo: QuoteRepository;

  beforeAll(async () => {
    env = await createTestEnv();
    repo = new QuoteRepository(env.db);
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(() => env.close());

  it('inserts quotes that arrive together in one statement, each with its own legs and directions', async () => {
    const batches: number[] = [];
    const commits = new GroupCommit<NewQuote, Date>({
      many: (xs) => {
        batches.push(xs.length);
        return repo.insertQuotes(xs);
      },
      one: (x) => repo.insertQuote(null, x.row, x.legs),
    });
    const quotes = Array.from({ length: 40 }, (_, i) => newQuote(31337, [[1], [1, 0], [0, 1, 1], [1, 0, 0, 1]][i % 4]));
    const created = await Promise.all(quotes.map((q) => commits.write(q)));
    expect(created.every((d) => d instanceof Date)).toBe(true);
    // 40 writes in one turn: the first statement takes what arrived, the rest go together after it
    expect(batches.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...batches)).toBeGreaterThan(1);
    for (const q of quotes) {
      const stored = await repo.findQuote(q.row.id);
      expect(stored).toMatchObject({ id: q.row.id, state: 'open', directions: q.row.directions, taker_address: q.row.taker_address });
      expect(await repo.legs(q.row.id)).toEqual(q.legs);
    }
  });

  it('a row the database refuses fails only its own write; its batch neighbours are stored', async () => {
    const commits = new GroupCommit<NewQuote, Date>({ many: (xs) => repo.insertQuotes(xs), one: (x) => repo.insertQuote(null, x.row, x.legs) });
    const good = Array.from({ length: 12 }, () => newQuote(31337, [1, 0]));
    const bad = newQuote(999_999, [1]); // no such network: the foreign key refuses it
    const outcomes = await Promise.allSettled([...good.slice(0, 6), bad, ...good.slice(6)].map((q) => commits.write(q)));
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(1);
    expect(outcomes[6]).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/foreign key/) }) });
    for (const q of good) expect(await repo.findQuote(q.row.id)).toMatchObject({ id: q.row.id });
    expect(await repo.findQuote(bad.row.id)).toBeNull();
  });

  it('concurrent POST /api/quote each answer 201 with their own stored quote', async () => {
    const { app } = buildApp(env);
    const takers = Array.from({ length: 30 }, () => randomAddress());
    const res = await Promise.all(
      takers.map((t, i) =>
        request(app)
          .post('/api/quote')
          .send(quoteBody(t, STRATEGY_ROWS[i % STRATEGY_ROWS.length].legs)),
      ),
    );
    expect(res.map((r) => r.status)).toEqual(takers.map(() => 201));
    const ids = new Set(res.map((r) => r.body.quote.id as string));
    expect(ids.size).toBe(30);
    for (const [i, r] of res.entries()) {
      const stored = await repo.findQuote(r.body.quote.id);
      expect(stored?.taker_address).toBe(takers[i]);
      expect(await repo.legs(r.body.quote.id)).toHaveLength(STRATEGY_ROWS[i % STRATEGY_ROWS.length].legs.length);
      expect(new Date(r.body.quote.created_at).getTime()).toBe(stored?.created_at.getTime());
    }
  });
});
