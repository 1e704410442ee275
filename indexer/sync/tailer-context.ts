import type { Config } from '../../shared/platform/config';
import type { Logger } from '../../shared/platform/logging';
import { ChainInconsistencyError, ChainMismatchError } from '../errors';
import type { RangeSizer } from '../rpc/log-range';
import { withoutBloom, type LightBlock, type Rpc } from '../rpc/rpc';
import type { Cursor, IndexerStore } from '../store/indexer-store';
import type { BloomChecker } from './log-completeness';
import { createRealtimeSync, type RealtimeSync } from './realtime-sync';
import { reorgWindowFor } from './reorg-window';
import { sourcesFor, watchedAddresses, type Sources } from './sources';
import { findStartBlock } from './start-block';
import { ChainInvariantError, UnfinalizedChain } from './unfinalized-chain';

/** A registry network as the indexer needs it. */
export interface NetworkSpec {
  chain_id: number;
  name: string;
  rpc_urls: string[];
  contracts: Record<string, string>;
  confirmations: number;
}

/** What one tailer knows between two database round trips; rebuilt from the database after any failure. */
export interface TailerContext {
  sources: Sources;
  chain: UnfinalizedChain;
  cursor: Cursor;
  realtime: RealtimeSync;
  /** The network's first indexed block (null for a cursor older than that record). */
  startBlock: number | null;
}

export interface ContextDeps {
  config: Config;
  logger: Logger;
  store: IndexerStore;
  rpc: Rpc;
  sizer: RangeSizer;
  checker: BloomChecker;
}

/**
 * Loads (or starts) a network's cursor, window and pairs, and checks them against the node:
 * it must be the chain the registry names, and the stored window must keep its invariant and
 * end at the cursor. A changed contract set re-indexes the network from scratch.
 */
export async function loadContext(deps: ContextDeps, network: NetworkSpec): Promise<TailerContext> {
  const { rpc, store, logger, config } = deps;
  const chainId = network.chain_id;
  const actual = await rpc.chainId();
  if (actual !== chainId) throw new ChainMismatchError(chainId, actual);
  const sources = sourcesFor(chainId, network.contracts, {
    factory: config.INDEXER_FACTORY_KEYS,
    mothership: config.INDEXER_MOTHERSHIP_KEYS,
    bondVault: config.INDEXER_BOND_VAULT_KEYS,
    lendingMarket: config.INDEXER_LENDING_MARKET_KEYS,
    priceOracle: config.INDEXER_PRICE_ORACLE_KEYS,
  });
  let state = await store.load(chainId, sources.contractSet);
  if (!state.cursor || state.staleSet) {
    if (state.staleSet) logger.warn({ was: state.staleSet, now: sources.contractSet }, 'contract set changed: re-indexing the network');
    const head = await rpc.latestBlock();
    const start = config.INDEXER_START_BLOCK ?? (await findStartBlock(rpc, watchedAddresses(sources), head.number, logger));
    await store.reset(chainId, sources.contractSet, start);
    logger.info({ start_block: start, contract_set: sources.contractSet }, 'indexing a network from its start block');
    state = await store.load(chainId, sources.contractSet);
  }
  const cursor = state.cursor!;
  for (const p of state.pairs) sources.pairs.add(p);
  let chain = new UnfinalizedChain(state.blocks);
  if (chain.isEmpty && cursor.block_number >= 0) {
    // A fresh cursor has no header yet: the block before the start becomes the window's base.
    const found = await rpc.blockByNumber(cursor.block_number);
    if (!found) throw new ChainInconsistencyError(`node has no block ${cursor.block_number} yet`);
    const base = withoutBloom(found);
    await store.saveBase(chainId, base);
    chain = new UnfinalizedChain([base]);
  }
  const tip: LightBlock | null = chain.tip;
  if (tip && tip.number !== cursor.block_number) {
    throw new ChainInvariantError(`chain ${chainId}: stored window ends at ${tip.number} but the cursor is at ${cursor.block_number}`);
  }
  const realtime = createRealtimeSync({
    rpc,
    sources,
    chain,
    window: reorgWindowFor(chainId, config),
    maxDepth: config.INDEXER_REORG_MAX_DEPTH,
    startBlock: state.startBlock,
    checkpointsBelow: (below, limit) => store.checkpointsBelow(chainId, below, limit),
    batchBlocks: config.INDEXER_REALTIME_BATCH_BLOCKS,
    sizer: deps.sizer,
    maxAddresses: config.INDEXER_MAX_ADDRESSES_PER_REQUEST,
    checker: deps.checker,
    logger,
  });
  return { sources, chain, cursor, realtime, startBlock: state.startBlock };
}
