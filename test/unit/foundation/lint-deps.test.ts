import { boundaryBroken, DOMAIN_BOUNDARIES, domainEntry, domainOf, ENTRY_WAIVERS, layerOf, narrowerRule } from '../../../bin/lint-deps';

describe('dependency lint: domains are entered through their index.ts', () => {
  it('knows a domain from a layer', () => {
    expect(domainOf('shared/quotes/quote.sql.ts')).toBe('shared/quotes/');
    expect(domainOf('shared/explore/clob/clob-feed.ts')).toBe('shared/explore/');
    expect(domainOf('shared/platform/db/queries.ts')).toBeNull();
    expect(domainOf('shared/entities.ts')).toBeNull();
    expect(domainOf('api/app.ts')).toBeNull();
  });

  it('refuses a file inside a domain to any file outside it, domain or role, and lets its index.ts through', () => {
    expect(boundaryBroken('shared/dutch/dutch.repository.ts', 'shared/quotes/quote.sql.ts')).toBe(
      'shared/quotes/ is entered only through shared/quotes/index.ts',
    );
    expect(boundaryBroken('shared/dutch/dutch.repository.ts', 'shared/quotes/index.ts')).toBeNull();
    expect(boundaryBroken('workers/job-catalog.ts', 'shared/orders/order.jobs.ts')).not.toBeNull();
    expect(boundaryBroken('bench/quote/validation-cost.ts', 'shared/quotes/quote-request.ts')).not.toBeNull();
    expect(boundaryBroken('shared/entities.ts', 'shared/identity/identity.entities.ts')).not.toBeNull();
    expect(boundaryBroken('shared/loans/health.ts', 'shared/explore/clob/clob-feed.ts')).not.toBeNull();
    expect(boundaryBroken('workers/explore/explore-feeds.ts', 'shared/loans/index.ts')).toBeNull();
  });

  it('leaves imports within a domain, and of the layers, alone', () => {
    expect(boundaryBroken('shared/loans/loan.service.ts', 'shared/loans/health.ts')).toBeNull();
    expect(boundaryBroken('shared/explore/clob/clob-feed.ts', 'shared/explore/feed-lock.ts')).toBeNull();
    expect(boundaryBroken('shared/quotes/quote.repository.ts', 'shared/platform/db/queries.ts')).toBeNull();
    expect(boundaryBroken('api/app.ts', 'shared/chain/clients.ts')).toBeNull();
  });

  it('waives only the listed imports', () => {
    expect(ENTRY_WAIVERS.every((w) => w.startsWith('indexer/'))).toBe(true);
    for (const w of ENTRY_WAIVERS) {
      const [file, dep] = w.split(' -> ');
      expect(domainEntry(file, dep)).toBeNull();
      expect(domainEntry('workers/x.ts', dep)).not.toBeNull();
    }
  });

  it('keeps shared/explore out of shared/loans entirely, its index too', () => {
    expect(boundaryBroken('shared/explore/explore-streams.ts', 'shared/loans/index.ts')).toBe('shared/explore/ must not import shared/loans/');
    expect(boundaryBroken('shared/explore/clob/clob-feed.ts', 'shared/loans/loan-feed.ts')).toBe('shared/explore/ must not import shared/loans/');
    expect(boundaryBroken('shared/loans/loan-feed.ts', 'shared/explore/index.ts')).toBeNull();
    expect(DOMAIN_BOUNDARIES.length).toBeGreaterThanOrEqual(1);
  });
});

describe('dependency lint: bench/', () => {
  it('is a layer of its own, and test/ files a bench reaches are one too', () => {
    expect(layerOf('bench/explore/run.ts')).toBe('bench');
    expect(layerOf('test/support/chaos-rpc.ts')).toBe('test');
  });

  it('lets a bench import the test helpers in test/support/ and no test', () => {
    expect(narrowerRule('bench/indexer/run.ts', 'test/support/chaos-rpc.ts')).toBeNull();
    expect(narrowerRule('bench/indexer/run.ts', 'test/integration/indexer/harness.ts')).toBe('bench/ may import test/ only from test/support/');
    expect(narrowerRule('test/support/chain-activity.ts', 'test/integration/indexer/harness.ts')).toBeNull();
    expect(narrowerRule('bench/indexer/run.ts', 'dev/hardhat-node.ts')).toBeNull();
  });
});
