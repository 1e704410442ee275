import { getAddress, type Address } from 'viem';
import type { DataSource } from 'typeorm';
import type { NetworkEntity } from '../networks';
import { IndexedDataRepository, isPairKey } from '../indexed';
import { NetworksService } from '../networks';

/** Contract-map keys that name tokens: the pair triple and the faucet mocks. */
const TOKEN_KEY = /^(token0|token1|premium_[a-z0-9_]+|weth|usdc|wbtc|meme)$/;

export interface ChainDirectory {
  network: NetworkEntity;
  mothership: Address | null;
  pairs: Set<Address>;
  /** Token address -> symbol, to tell a taker who passed a token instead of a pair. */
  tokens: Map<Address, string>;
}

/**
 * What the quote path needs to know of a chain, cached briefly in-process: the network, its
 * mothership, its known pairs (the network's own, plus the indexer's discovered cores when that table
 * exists) and its tokens. Stale by at most `ttlMs`; network changes are rare.
 */
export class PairDirectory {
  private readonly cache = new Map<number, { at: number; dir: Promise<ChainDirectory | null> }>();
  private readonly networks: NetworksService;

  constructor(
    private readonly ds: DataSource,
    private readonly ttlMs: number,
  ) {
    this.networks = new NetworksService(ds);
  }

  /**
   * The chain's directory. Only chains the networks table has stay cached: a chain id any caller may
   * send (1 to 2^31-1) that names no enabled network is looked up each time and never kept, so
   * requests with made-up chain ids cannot grow this process's memory (concurrent lookups of one
   * id still share one query).
   */
  get(chainId: number): Promise<ChainDirectory | null> {
    const hit = this.cache.get(chainId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.dir;
    const dir = this.load(chainId);
    const entry = { at: Date.now(), dir };
    this.cache.set(chainId, entry);
    const forget = () => {
      if (this.cache.get(chainId) === entry) this.cache.delete(chainId);
    };
    dir.then((d) => {
      if (!d) forget();
    }, forget);
    return dir;
  }

  /** How many chains are cached (tests: made-up chain ids leave none). */
  get size(): number {
    return this.cache.size;
  }

  private async load(chainId: number): Promise<ChainDirectory | null> {
    const network = await this.networks.network(chainId);
    if (!network || !network.enabled) return null;
    const pairs = new Set<Address>();
    const tokens = new Map<Address, string>();
    for (const [key, addr] of Object.entries(network.contracts)) {
      if (isPairKey(key)) pairs.add(getAddress(addr));
      else if (TOKEN_KEY.test(key)) tokens.set(getAddress(addr), key);
    }
    for (const addr of await this.discoveredCores(chainId)) pairs.add(getAddress(addr));
    const registered = await this.networks.tokensOf(chainId);
    for (const t of registered) tokens.set(getAddress(t.address), t.symbol);
    const mothership = network.contracts.mothership ? getAddress(network.contracts.mothership) : null;
    return { network, mothership, pairs, tokens };
  }

  /** Pairs the indexer found through the factory (`GET /api/indexer/cores`). */
  private async discoveredCores(chainId: number): Promise<string[]> {
    return new IndexedDataRepository(this.ds).pairAddresses(chainId);
  }
}
