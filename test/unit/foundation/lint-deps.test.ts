import { boundaryBroken, DOMAIN_BOUNDARIES, layerOf, narrowerRule } from '../../../bin/lint-deps';

describe('dependency lint: domain boundaries', () => {
  it('keeps shared/explore out of shared/loans entirely', () => {
    expect(boundaryBroken('shared/explore/explore-streams.ts', 'shared/loans/index.ts')).toBe('shared/explore/ must not import shared/loans/');
    expect(boundaryBroken('shared/explore/clob/clob-feed.ts', 'shared/loans/loan-feed.ts')).toBe('shared/explore/ must not import shared/loans/');
  });

  it("lets shared/loans read shared/explore's index and nothing else of it", () => {
    expect(boundaryBroken('shared/loans/loan-feed.ts', 'shared/explore/index.ts')).toBeNull();
    expect(boundaryBroken('shared/loans/loan-feed.ts', 'shared/explore/explore-feed.ts')).toBe(
      'shared/loans/ may import shared/explore/ only through shared/explore/index.ts',
    );
    expect(boundaryBroken('shared/loans/health.ts', 'shared/explore/clob/clob-feed.ts')).not.toBeNull();
  });

  it('leaves imports within a domain, and of other domains, alone', () => {
    expect(boundaryBroken('shared/loans/loan.service.ts', 'shared/loans/health.ts')).toBeNull();
    expect(boundaryBroken('shared/explore/explore-streams.ts', 'shared/explore/feed-lock.ts')).toBeNull();
    expect(boundaryBroken('workers/explore/explore-feeds.ts', 'shared/loans/index.ts')).toBeNull();
    expect(DOMAIN_BOUNDARIES.length).toBeGreaterThanOrEqual(2);
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
