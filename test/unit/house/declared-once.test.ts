import { filesMatching, sourceFiles } from './source-files';

/**
 * Things the code base declares once: a second declaration drifts from the first. Each case is
 * the pattern of a declaration and the one file allowed to hold it.
 */
describe('declared once', () => {
  const files = sourceFiles();

  it('finds the source', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('"whatever can run one statement" is Queryable of shared/platform/db/queries.ts', () => {
    const pattern = /\btype\s+Queryable\s*[=<]|\binterface\s+Queryable\b|Pick<\s*(?:EntityManager|DataSource)\s*,\s*'query'\s*>/;
    expect(filesMatching(files, pattern)).toEqual(['shared/platform/db/queries.ts']);
  });

  it("a generated document's JSON object is Json of api/http/schema-docs.ts", () => {
    expect(filesMatching(files, /\btype\s+Json\s*[=<]/)).toEqual(['api/http/schema-docs.ts']);
  });

  it("an order's JSON form becomes its OrderIntent in wire/src/protocol/order-intent.ts alone (server and client call it)", () => {
    expect(filesMatching(files, /BigInt\(\s*\w+\.decayMinFill\.decayRatePerSecond\s*\)/)).toEqual(['wire/src/protocol/order-intent.ts']);
  });

  it("a quote's and a leg's insert columns are listed once, in shared/quotes/quote.repository.ts (Dutch quotes too)", () => {
    expect(filesMatching(files, /INSERT INTO (?:quotes|quote_legs)\s*\((?!\$\{(?:QUOTE|LEG)_INSERT_COLUMNS\})/)).toEqual([]);
    expect(filesMatching(files, /export const (?:QUOTE|LEG)_INSERT_COLUMNS\b/)).toEqual(['shared/quotes/quote.repository.ts']);
  });

  it("an offer's and a bid's 409 on a closed quote come from one table (closedQuoteErrors of api/routes/quote.http.ts), never written out", () => {
    expect(filesMatching(files, /errorCase\(\s*409,\s*'quote_(?:expired|filled|cancelled)'/)).toEqual([]);
  });

  it("a book order's on-chain states are wire's ON_CHAIN_ORDER_STATES (OnChainOrderState), the indexer's rows included", () => {
    expect(filesMatching(files, /'open'\s*\|\s*'filled'\s*\|\s*'cancelled'/)).toEqual([]);
    expect(filesMatching(files, /\[\s*'open',\s*'filled',\s*'cancelled'\s*\]/)).toEqual(['wire/src/order.wire.ts']);
  });

  it("a sweeper's overdue reads are idsWhere of shared/platform/db/queries.ts, its loop over them redoSteps of workers/sweep-report.ts", () => {
    expect(filesMatching(files, /SELECT id FROM \$\{/)).toEqual(['shared/platform/db/queries.ts']);
    expect(filesMatching(files, /\bskipped\+\+/)).toEqual(['workers/sweep-report.ts']);
    expect(filesMatching(files, /\bredoSteps\(\s*ctx,\s*'(?:quote|order)'/).sort()).toEqual([
      'workers/orders/order-sweeper.ts',
      'workers/quotes/quote-sweeper.ts',
    ]);
  });
});
