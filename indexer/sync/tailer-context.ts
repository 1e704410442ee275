import type { Config } from '../../shared/platform/config';
import type { Logger } from '../../shared/platform/logging';
import { ChainInconsistencyError, ChainMismatchError } from '../errors';
import type { RangeSizer } from '../rpc/log-range';
import { withoutBloom, type LightBlock, type Rpc } from '../rpc/rpc';
import type { Cursor, IndexerStore, RollbackEffects } from '../store/indexer-store';
import type { BloomChecker } from './log-completeness';
import { createRealtimeSync, type RealtimeSync } from './realtime-sync';
import { reorgWindowFor } from './reorg-window';
import { sourcesFor, watchedAddresses, type Sources } from './sources';
import { findStartBlock } from './start-block';
import { ChainInvariantError, UnfinalizedChain } from './unfinalized-chain';

/** A network (a row of `networks`) as the indexer needs it. */
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
  /**
   * What loading undid when it started the network over (a new chain under it, or a changed
   * contract set), for the tailer to tell clients as it tells a rollback; null when it did not.
   */
  undone: { effects: RollbackEffects; key: string } | null;
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
 * it must be the chain the network's row names, and the stored window must keep its invariant and
 * end at the cursor. A changed contract set re-indexes the network from scratch, and so does a
 * new chain under the same chain id: a node whose block 0 is not the one recorded with the
 * cursor (a devchain started again under an existing database) is another chain, not a reorg.
 */
export async function loadContext(deps: ContextDeps, network: NetworkSpec): Promise<TailerContext> {
  const { rpc, store, logger, config } = deps;
  const chainId = network.chain_id;
  const actual = await rpc.chainId();
  if (actual !== chainId) throw new ChainMismatchError(chainId, actual);
  // Null only from a node that cannot name its block 0: then nothing is compared or recorded.
  const genesis = (await rpc.blockByNumber(0))?.hash ?? null;
  const sources = sourcesFor(chainId, network.contracts, {
    factory: config.INDEXER_FACTORY_KEYS,
    mothership: config.INDEXER_MOTHERSHIP_KEYS,
    bondVault: config.INDEXER_BOND_VAULT_KEYS,
    lendingMarket: config.INDEXER_LENDING_MARKET_KEYS,
    priceOracle: config.INDEXER_PRICE_ORACLE_KEYS,
  });
  let state = await store.load(chainId, sources.contractSet);
  const replaced = state.cursor !== null && state.genesis !== null && genesis !== null && state.genesis !== genesis;
  let undone: TailerContext['undone'] = null;
  if (!state.cursor || state.staleSet || replaced) {
    if (state.staleSet) logger.warn({ was: state.staleSet, now: sources.contractSet }, 'contract set changed: re-indexing the network');
    const head = await rpc.latestBlock();
    const start = config.INDEXER_START_BLOCK ?? (await findStartBlock(rpc, watchedAddresses(sources), head.number, logger));
    const effects = await store.reset(chainId, sources.contractSet, start, genesis);
    // A network indexed for the first time had nothing to undo. The key makes what is told of
    // this start over idempotent: one per chain and contract set.
    if (state.cursor) undone = { effects, key: `reset-${genesis ?? 'unknown'}-${sources.contractSet}` };
    if (replaced) {
      logger.info(
        {
          recorded_genesis: state.genesis,
          genesis,
          indexed_to: state.cursor!.block_number,
          start_block: start,
          reopened_quotes: undone?.effects.reopened.length ?? 0,
        },
        `network ${chainId} is a new chain (its genesis block differs from the one recorded): its indexed data is reset, indexing from block ${start}`,
      );
    } else {
      logger.info({ start_block: start, contract_set: sources.contractSet }, 'indexing a network from its start block');
    }
    state = await store.load(chainId, sources.contractSet);
  } else if (state.genesis === null && genesis !== null) {
    // A cursor from before genesis hashes were kept: from now on this chain is the one it follows.
    await store.recordGenesis(chainId, sources.contractSet, genesis);
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
    genesis,
    checkpointsBelow: (below, limit) => store.checkpointsBelow(chainId, below, limit),
    batchBlocks: config.INDEXER_REALTIME_BATCH_BLOCKS,
    sizer: deps.sizer,
    maxAddresses: config.INDEXER_MAX_ADDRESSES_PER_REQUEST,
    checker: deps.checker,
    logger,
  });
  return { sources, chain, cursor, realtime, startBlock: state.startBlock, undone };
}
