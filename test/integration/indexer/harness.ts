import { randomBytes, randomUUID } from 'node:crypto';
import { zeroAddress, type Address, type Hex } from 'viem';
import { mothershipAbi, optionPairAbi, pairFactoryAbi } from '../../../shared/chain/abis';
import type { Config } from '../../../shared/platform/config';
import { Lifecycle } from '../../../shared/platform/lifecycle';
import { directions, encodeOptionId, packageOfferTypedData, takerAddressHash, type Leg, type PackageOffer } from '../../../shared/protocol';
import { hashStreamToken } from '../../../shared/platform/stream-tokens';
import { NetworksService, type NetworkInput } from '../../../shared/networks';
import { startIndexer, type Indexer } from '../../../indexer';
import type { LivePublisher } from '../../../indexer/publish/live-publisher';
import { startTestChain, type TestChain } from '../../support/chain';
import { sharedTestChain } from '../../support/worker-chain';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/** Settings that make a tailer react in tens of milliseconds on a local node. */
export const FAST_INDEXER = {
  INDEXER_POLL_INTERVAL_MS: '50',
  INDEXER_HEARTBEAT_MS: '100',
  INDEXER_STATUS_STALE_MS: '3000',
  INDEXER_RPC_TIMEOUT_MS: '2000',
  INDEXER_RPC_RETRIES: '1',
  INDEXER_RPC_BACKOFF_MS: '20',
  INDEXER_RPC_BACKOFF_MAX_MS: '200',
  INDEXER_NETWORKS_REFRESH_MS: '200',
};

export interface Harness {
  chain: TestChain;
  env: TestEnv;
  networks: NetworksService;
  /** Registers the chain in the registry (RPC URLs, confirmations, contracts... can be overridden). */
  register(over?: Partial<NetworkInput>): Promise<void>;
  close(): Promise<void>;
}

/**
 * The chain is the jest worker's shared node (test/support/worker-chain.ts) unless the file asks
 * for a private one (`{ chain: 'private' }`: it stops the node, or fronts it with a proxy of its own).
 */
export async function openHarness(envOverrides: Record<string, string> = {}, opts: { chain?: 'shared' | 'private' } = {}): Promise<Harness> {
  const [chain, env] = await Promise.all([
    opts.chain === 'private' ? startTestChain() : sharedTestChain(),
    createTestEnv({ ...FAST_INDEXER, ...envOverrides }),
  ]);
  const networks = new NetworksService(env.db);
  return {
    chain,
    env,
    networks,
    async register(over = {}) {
      await networks.upsertNetwork({ ...chain.network, ...over });
    },
    async close() {
      await Promise.allSettled([chain.stop(), env.close()]);
    },
  };
}

/** The indexer role in this process, stopped by the returned function. */
export async function runIndexer(
  env: TestEnv,
  opts: { config?: Partial<Config>; publisher?: LivePublisher } = {},
): Promise<{ indexer: Indexer; stop(): Promise<void> }> {
  const lifecycle = new Lifecycle(env.logger, 10_000);
  const config = { ...env.config, ...opts.config };
  const indexer = await startIndexer(
    { config, logger: env.logger, db: env.db, redis: env.redis, metrics: env.metrics, queue: env.queue, publisher: opts.publisher },
    lifecycle,
  );
  return { indexer, stop: () => lifecycle.shutdown('test') };
}

/** Polls `read` until `check` holds; fails with the last value after `timeoutMs`. */
export async function waitFor<T>(what: string, read: () => Promise<T>, check: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await read();
    if (check(last)) return last;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

export async function cursorOf(env: TestEnv, chainId: number): Promise<{ block_number: number; block_hash: string | null } | null> {
  const rows: { block_number: string; block_hash: string | null }[] = await env.db.query(
    `SELECT block_number, block_hash FROM indexer_cursors WHERE chain_id = $1`,
    [chainId],
  );
  return rows[0] ? { block_number: Number(rows[0].block_number), block_hash: rows[0].block_hash } : null;
}

/**
 * Records every move of the cursor from now on (a row trigger), so that a step back is observed
 * rather than inferred. `moves()` lists the block numbers it moved to, oldest first.
 */
export async function recordCursorMoves(env: TestEnv): Promise<{ moves(): Promise<number[]> }> {
  await env.db.query(`CREATE TABLE test_cursor_moves (id bigserial PRIMARY KEY, block_number bigint NOT NULL)`);
  await env.db.query(`
    CREATE FUNCTION test_log_cursor() RETURNS trigger AS $$
    BEGIN INSERT INTO test_cursor_moves (block_number) VALUES (NEW.block_number); RETURN NEW; END $$ LANGUAGE plpgsql`);
  await env.db.query(`CREATE TRIGGER test_cursor_moves AFTER UPDATE ON indexer_cursors FOR EACH ROW EXECUTE FUNCTION test_log_cursor()`);
  return {
    async moves() {
      const rows: { block_number: string }[] = await env.db.query(`SELECT block_number FROM test_cursor_moves ORDER BY id`);
      return rows.map((r) => Number(r.block_number));
    },
  };
}

/** Waits until the indexer's cursor reaches the node's current head. */
export async function waitForHead(h: Harness, confirmations = 0): Promise<number> {
  // Straight from the node: viem's client caches the block number for its polling interval.
  const head = Number(await h.chain.rpc<string>('eth_blockNumber'));
  await waitFor(
    `cursor at ${head}`,
    () => cursorOf(h.env, h.chain.chainId),
    (c) => c !== null && c.block_number >= head - confirmations,
  );
  return head;
}

/** An option id one week after the chain's current time. */
export async function optionId(chain: TestChain, strike: bigint, type: 0 | 1 = 0): Promise<bigint> {
  const expiry = (await chain.now()) + 7 * 86_400;
  return encodeOptionId({ option_type: type, strike_wad: strike, expiry_timestamp: expiry, start_exercise_timestamp: 0 });
}

/**
 * Mines `n` empty blocks one `evm_mine` at a time. (Hardhat's `hardhat_mine` is faster but
 * leaves the state of the blocks it mines in one go unreadable by number, which breaks the
 * indexer's search for the contracts' deployment block.)
 */
export async function mineBlocks(chain: TestChain, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await chain.rpc('evm_mine');
}

/** Sends a pair call from `chain.wallets[from]` and waits for its receipt. */
export async function pairCall(
  chain: TestChain,
  from: number,
  pair: Address,
  functionName: 'placeOrder' | 'fillOrder' | 'cancelOrder' | 'transfer',
  args: readonly unknown[],
): Promise<{ hash: Hex; blockNumber: bigint }> {
  const hash = await chain.wallets[from].writeContract({ address: pair, abi: optionPairAbi, functionName, args } as never);
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
  return { hash, blockNumber: receipt.blockNumber };
}

/** Mints `amount` of `id` to the wallet at index `to`: it places a buy order and another wallet fills it. */
export async function mint(chain: TestChain, pair: Address, to: number, id: bigint, amount: bigint, filler = 9): Promise<void> {
  const orderId = await chain.publicClient.readContract({ address: pair, abi: optionPairAbi, functionName: 'nextOrderId' });
  await pairCall(chain, to, pair, 'placeOrder', [id, true, 1n, amount]);
  await pairCall(chain, filler, pair, 'fillOrder', [orderId, amount]);
}

export async function createPair(chain: TestChain, token0: Address, token1: Address, premium: Address): Promise<Address> {
  const hash = await chain.wallets[0].writeContract({
    address: chain.addresses.pairFactory,
    abi: pairFactoryAbi,
    functionName: 'createPair',
    args: [token0, token1, premium],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  return chain.publicClient.readContract({
    address: chain.addresses.pairFactory,
    abi: pairFactoryAbi,
    functionName: 'getPair',
    args: [token0, token1, premium],
  });
}

export async function balanceOf(chain: TestChain, pair: Address, holder: Address, id: bigint): Promise<bigint> {
  return chain.publicClient.readContract({ address: pair, abi: optionPairAbi, functionName: 'balanceOf', args: [holder, id] });
}

let nonce = 0;

/**
 * An open quote in the database (as the quote API stores it) and the on-chain settlement of a
 * maker's offer on it by the taker: one single-call leg of `amount` on the devchain pair.
 */
export async function settleQuote(
  h: Harness,
  opts: { maker: number; taker: number; amount?: bigint; strike?: bigint; expired?: boolean; /** false: return once sent (automine off) */ wait?: boolean },
): Promise<{ quoteId: string; streamHash: string; tx: Hex; expiry: number }> {
  const maker = h.chain.accounts[opts.maker];
  const taker = h.chain.accounts[opts.taker];
  const now = await h.chain.now();
  const expiry = now + 7 * 86_400;
  const legs: Leg[] = [
    {
      pair6909Contract: h.chain.addresses.pair,
      optionType: 0,
      structure: 0,
      startExerciseTimestamp: 0,
      expiryTimestamp: expiry,
      strikeWad: opts.strike ?? 3100n,
      amount: opts.amount ?? 5n,
    },
  ];
  const dirs = directions('b_is_buy', [0]);
  const salt = `0x${randomBytes(32).toString('hex')}` as Hex;
  const hash = takerAddressHash(taker.address, salt, dirs, zeroAddress);
  const streamHash = hashStreamToken(randomBytes(32).toString('base64url'));
  const quoteId = randomUUID();
  await h.env.db.query(
    `INSERT INTO quotes (id, chain_id, offer_format, polarity, strategy, taker_address, referrer, taker_salt, taker_address_hash,
       directions, pair_contract, expiry_timestamp, stream_token_hash, expires_at, state, closed_at)
     VALUES ($1, $2, 'package_only', 'b_is_buy', 'single', $3, $4, $5, $6, $7, $8, $9, $10, now() + interval '5 minutes', $11,
       CASE WHEN $11 = 'open' THEN NULL ELSE now() END)`,
    // `expired`: the expiry job already closed it, as when the indexer lags the chain.
    [
      quoteId,
      h.chain.chainId,
      taker.address,
      zeroAddress,
      salt,
      hash.toLowerCase(),
      dirs,
      h.chain.addresses.pair,
      expiry,
      streamHash,
      opts.expired ? 'expired' : 'open',
    ],
  );
  const offer: PackageOffer = {
    takerAddressHash: hash,
    legs,
    packagePremium: 1000n,
    makerPaysTaker: false,
    premiumToken: h.chain.addresses.usdc,
    maker: maker.address,
    nonce: BigInt(++nonce) + BigInt(Date.now()) * 1000n,
    deadline: now + 600,
  };
  const signature = await maker.signTypedData(packageOfferTypedData(h.chain.chainId, h.chain.addresses.mothership, offer));
  const tx = await h.chain.wallets[opts.taker].writeContract({
    address: h.chain.addresses.mothership,
    abi: mothershipAbi,
    functionName: 'executeFixedPackageIntent',
    args: [offer, signature, salt, dirs, zeroAddress],
  });
  if (opts.wait !== false) {
    const receipt = await h.chain.publicClient.waitForTransactionReceipt({ hash: tx });
    if (receipt.status !== 'success') throw new Error('settlement reverted');
  }
  return { quoteId, streamHash, tx, expiry };
}

/** A quote's state columns. */
export async function quoteState(h: Harness, quoteId: string): Promise<{ state: string; fill_tx_hash: string | null; closed_at: Date | null }> {
  return (await h.env.db.query(`SELECT state, fill_tx_hash, closed_at FROM quotes WHERE id = $1`, [quoteId]))[0];
}
