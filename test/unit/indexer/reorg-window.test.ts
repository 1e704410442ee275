import { reorgWindowFor } from '../../../indexer/sync/reorg-window';
import { ConfigError, loadConfig } from '../../../shared/platform/config';

const config = (env: Record<string, string> = {}) => loadConfig({ NODE_ENV: 'test', ...env });

describe('the reorg window of a network', () => {
  it('is the operator entry, else the built-in one of the chain, else INDEXER_REORG_WINDOW_BLOCKS', () => {
    const c = config({ INDEXER_REORG_WINDOW_BY_CHAIN: '31337:9, 8453:5000', INDEXER_REORG_WINDOW_BLOCKS: '300' });
    expect(reorgWindowFor(31337, c)).toBe(9);
    expect(reorgWindowFor(8453, c)).toBe(5000);
    expect(reorgWindowFor(42161, c)).toBe(4096);
    expect(reorgWindowFor(1, c)).toBe(128);
    expect(reorgWindowFor(777, c)).toBe(300);
    const defaults = config();
    expect(reorgWindowFor(31337, defaults)).toBe(2048);
    expect(reorgWindowFor(777, defaults)).toBe(256);
    expect(defaults.INDEXER_REORG_MAX_DEPTH).toBe(50_000);
  });

  it.each(['31337', '31337:0', '0:5', 'abc:5', '31337:100001', '3000000000:5'])('refuses INDEXER_REORG_WINDOW_BY_CHAIN=%s, naming the key', (value) => {
    let err: unknown;
    try {
      config({ INDEXER_REORG_WINDOW_BY_CHAIN: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      { key: 'INDEXER_REORG_WINDOW_BY_CHAIN', message: expect.stringContaining(`"${value}" is not chain_id:blocks`) },
    ]);
  });
});
