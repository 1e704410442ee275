import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { closeQuote, fillSettledQuotes, QuoteRepository, reopenFilledQuotes } from '../../../shared/quotes';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';

const ROOT = path.resolve(__dirname, '../../..');
const STATE_MODULE = 'shared/quotes/quote-state.ts';
/** Everything that ships: the roles, shared code, entry points and dev tooling. */
const PRODUCTION = ['api', 'socket', 'workers', 'indexer', 'shared', 'bin', 'dev'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name === 'artifacts' ? [] : sourceFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * SQL statements in `text` that write a quote's state: an UPDATE of `quotes` whose SET assigns
 * `state`, or an INSERT into `quotes` that names the column (a new quote is `open` by the
 * column's default).
 */
function quoteStateWrites(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/UPDATE\s+quotes\b/gi)) {
    const stmt = text.slice(m.index, m.index + 600);
    const set = /^UPDATE\s+quotes\b(?:\s+(?:AS\s+)?\w+)?\s+SET\b([\s\S]*?)(?:\bFROM\b|\bWHERE\b|\bRETURNING\b|`|;|$)/i.exec(stmt)?.[1] ?? '';
    if (/(^|[\s,.])state\s*=/i.test(set)) found.push(stmt.replace(/\s+/g, ' ').slice(0, 80));
  }
  for (const [, cols] of text.matchAll(/INSERT\s+INTO\s+quotes\s*\(([^)]*)\)/gi)) if (/\bstate\b/i.test(cols)) found.push(cols.slice(0, 80));
  return found;
}

describe('quote state: one module owns every change', () => {
  it('the scan recognises each way a quote state write is spelled', () => {
    expect(quoteStateWrites("m.query(`UPDATE quotes SET state = 'filled', closed_at = now() WHERE id = $1`)")).toHaveLength(1);
    expect(quoteStateWrites('`UPDATE quotes q\n  SET closed_at = now(),\n      state = $2\n WHERE q.id = $1`')).toHaveLength(1);
    expect(quoteStateWrites("'update   QUOTES set q.state=$1 where id=$2'")).toHaveLength(1);
    expect(quoteStateWrites("`UPDATE quotes AS q SET fill_tx_hash = 'x', state = 'filled'`")).toHaveLength(1);
    expect(quoteStateWrites('`INSERT INTO quotes (id, state) VALUES ($1, $2)`')).toHaveLength(1);
    expect(quoteStateWrites("`UPDATE quotes SET announced_at = now() WHERE id = $1 AND state = 'open'`")).toEqual([]);
    expect(quoteStateWrites('`UPDATE quote_offers SET state = $1`')).toEqual([]);
    expect(quoteStateWrites('`INSERT INTO quotes (id, chain_id) VALUES ($1, $2)`')).toEqual([]);
  });

  it(`nothing but ${STATE_MODULE} writes quotes.state`, () => {
    const offenders = PRODUCTION.flatMap((dir) => sourceFiles(path.join(ROOT, dir)))
      .map((file) => path.relative(ROOT, file))
      .filter((file) => file !== STATE_MODULE)
      .flatMap((file) => quoteStateWrites(readFileSync(path.join(ROOT, file), 'utf8')).map((sql) => `${file}: ${sql}`));
    expect(offenders).toEqual([]);
    expect(quoteStateWrites(readFileSync(path.join(ROOT, STATE_MODULE), 'utf8')).length).toBeGreaterThanOrEqual(3);
  });
});

describe('quote state transitions (Postgres)', () => {
  let env: TestEnv;
  let app: ReturnType<typeof buildApp>['app'];
  const repo = () => new QuoteRepository(env.db);

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  });
  afterAll(() => env.close());

  async function openQuote(): Promise<{ id: string; taker_address_hash: string }> {
    const { body } = await request(app).post('/api/quote').send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs)).expect(201);
    return { id: body.quote.id, taker_address_hash: body.quote.taker_address_hash };
  }
  const stateOf = async (id: string) => (await repo().findQuote(id))?.state;
  const txHash = () => `0x${randomBytes(32).toString('hex')}`;

  it('expire and cancel close an open quote once; a second close changes nothing', async () => {
    const a = await openQuote();
    const closed = await closeQuote(env.db, a.id, 'expired');
    expect(closed).toMatchObject({ id: a.id, state: 'expired', fill_tx_hash: null });
    expect(closed?.closed_at).toBeInstanceOf(Date);
    expect(await closeQuote(env.db, a.id, 'expired')).toBeNull();
    expect(await closeQuote(env.db, a.id, 'cancelled')).toBeNull();
    expect(await stateOf(a.id)).toBe('expired');

    const b = await openQuote();
    expect(await closeQuote(env.db, b.id, 'cancelled')).toMatchObject({ id: b.id, state: 'cancelled' });
    expect(await closeQuote(env.db, '00000000-0000-4000-8000-000000000000', 'expired')).toBeNull();
  });

  it('a settlement fills its open or expired quote, on its chain only, once', async () => {
    const open = await openQuote();
    const expired = await openQuote();
    const cancelled = await openQuote();
    await closeQuote(env.db, expired.id, 'expired');
    await closeQuote(env.db, cancelled.id, 'cancelled');
    const tx = txHash();
    const refs = [open, expired, cancelled].map((q) => ({ taker_address_hash: q.taker_address_hash, tx_hash: tx }));

    expect(await fillSettledQuotes(env.db, 1, refs)).toEqual([]);
    const filled = await fillSettledQuotes(env.db, 31337, refs);
    expect(filled.map((f) => f.quote_id).sort()).toEqual([open.id, expired.id].sort());
    for (const f of filled)
      expect(f).toEqual({
        quote_id: f.quote_id,
        taker_address_hash: expect.any(String),
        stream_token_hash: expect.any(String),
        filled_at_ms: expect.stringMatching(/^\d+$/),
      });
    expect((await repo().findQuote(open.id))?.fill_tx_hash).toBe(tx);
    expect(await stateOf(cancelled.id)).toBe('cancelled');
    expect(await fillSettledQuotes(env.db, 31337, refs)).toEqual([]);
    expect(await fillSettledQuotes(env.db, 31337, [])).toEqual([]);
  });

  it('a rolled-back fill reopens the quote while its window lasts, else leaves it expired', async () => {
    const live = await openQuote();
    const lapsed = await openQuote();
    const never = await openQuote();
    await fillSettledQuotes(
      env.db,
      31337,
      [live, lapsed].map((q) => ({ taker_address_hash: q.taker_address_hash, tx_hash: txHash() })),
    );
    await env.db.query(`UPDATE quotes SET expires_at = now() - interval '1 second' WHERE id = $1`, [lapsed.id]);

    const reopened = await reopenFilledQuotes(env.db, [live.id, lapsed.id, never.id]);
    expect(reopened.map((r) => [r.quote_id, r.state]).sort()).toEqual(
      [
        [live.id, 'open'],
        [lapsed.id, 'expired'],
      ].sort(),
    );
    const [l, x] = await Promise.all([repo().findQuote(live.id), repo().findQuote(lapsed.id)]);
    expect([l?.state, l?.closed_at, l?.fill_tx_hash]).toEqual(['open', null, null]);
    expect([x?.state, x?.fill_tx_hash]).toEqual(['expired', null]);
    expect(x?.closed_at).toBeInstanceOf(Date);
    expect(await reopenFilledQuotes(env.db, [live.id, lapsed.id])).toEqual([]);
    expect(await reopenFilledQuotes(env.db, [])).toEqual([]);
  });
});
