import type { Config } from '../../shared/platform/config';

/**
 * How many recent block hashes a network's window keeps linked, when the operator has not said
 * (INDEXER_REORG_WINDOW_BY_CHAIN). Sized to the reorgs each kind of chain produces, in blocks:
 * - local nodes (Hardhat, Anvil, Ganache) reorganise whenever a developer reverts a snapshot,
 *   to any depth, and blocks are cheap: a deep window makes most reverts a walk in memory;
 * - rollups reorganise only their unsafe head, minutes at most: OP-stack chains and other
 *   rollups (2 s blocks or so) 1024, Arbitrum (0.25 s blocks) 4096;
 * - Ethereum finalizes after about 64 blocks: 128.
 * Deeper reorgs are still repaired (from older checkpoints), only less cheaply.
 */
const BUILT_IN_WINDOWS: Readonly<Record<number, number>> = {
  31337: 2048, // Hardhat, Anvil
  1337: 2048, // Ganache, geth --dev
  1: 128, // Ethereum
  11155111: 128, // Sepolia
  17000: 128, // Holesky
  10: 1024, // OP Mainnet
  11155420: 1024, // OP Sepolia
  8453: 1024, // Base
  84532: 1024, // Base Sepolia
  324: 1024, // zkSync Era
  59144: 1024, // Linea
  534352: 1024, // Scroll
  42161: 4096, // Arbitrum One
  42170: 4096, // Arbitrum Nova
  421614: 4096, // Arbitrum Sepolia
};

/** The window of `chainId`: the operator's entry, else the built-in one, else INDEXER_REORG_WINDOW_BLOCKS. */
export function reorgWindowFor(chainId: number, config: Pick<Config, 'INDEXER_REORG_WINDOW_BY_CHAIN' | 'INDEXER_REORG_WINDOW_BLOCKS'>): number {
  return config.INDEXER_REORG_WINDOW_BY_CHAIN[chainId] ?? BUILT_IN_WINDOWS[chainId] ?? config.INDEXER_REORG_WINDOW_BLOCKS;
}
