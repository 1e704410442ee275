import { randomBytes } from 'node:crypto';
import { createDataSource } from '../../shared/entities';
import { OrganizationService } from '../../shared/identity';
import { NetworksService } from '../../shared/networks';
import { benchPrefix } from '../support/bench-cleanup';
import { benchDatabase } from '../support/bench-db';
import { spawnServer } from '../support/spawn-server';
import { BENCH_WRITE_LIMITS } from '../support/bench-limits';

/** The pair (and mothership) the orders benchmarks register on chain 31337, and its premium token. */
export const BENCH_PAIR = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
export const BENCH_USDC = '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853';
const MOTHERSHIP = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

let nonce = BigInt(Date.now()) * 1_000_000n;

/** An order body for `owner` with a fresh nonce, so each is a new intent (the same intent twice answers the first record). */
export function orderBody(owner: string): string {
  const now = Math.floor(Date.now() / 1000);
  return JSON.stringify({
    chain_id: 31337,
    amount: '1000000000000000000',
    destination: { from: owner, to: BENCH_PAIR, nonce: { prefix: 1, nonce: (++nonce).toString() } },
    data: {
      options6909Contract: BENCH_PAIR,
      rewardLimits: { fillerRewardMaxPerMintedUnit: '1000', fillerRewardMinPerMintedUnit: '1' },
      pairKey: { optionType: 0, startExecutionTimeStamp: 0, expiryTimestamp: now + 7 * 86400 },
      decayPremium: { premiumStart: '125000000', premiumEnd: '100000000', decayRateBpsPerSecond: 1 },
      decayStrike: { strikeStart: '3000000000000000000000', strikeEnd: '3000000000000000000000', decayRateBpsPerSecond: 0 },
      decayMinFill: { startMinFill: '0', decayRatePerSecond: '0' },
      buyOrSell: 0,
      intentStartTime: now - 60,
      intentExpiry: now + 3600,
      orderOnExpiry: 0,
    },
  });
}

/**
 * A migrated throwaway database with the bench network, the pair as the indexer would have
 * recorded it, a fill bond minimum, and `makers` members of one maker organization, each bonded.
 */
export async function ordersBenchDatabase(tag: string, makers: readonly string[]): Promise<{ url: string; drop: () => Promise<void> }> {
  const db = await benchDatabase(tag);
  const ds = createDataSource({ url: db.url, poolSize: 1 });
  await ds.initialize();
  const networks = new NetworksService(ds);
  await networks.upsertNetwork({
    chain_id: 31337,
    name: 'Bench',
    rpc_urls: ['http://127.0.0.1:8545'],
    contracts: { mothership: MOTHERSHIP, opshuns_core: BENCH_PAIR },
    tokens: [{ address: BENCH_USDC, symbol: 'USDC', name: 'USD Coin', decimals: 6 }],
  });
  await networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '1', fill_bond_amount: '1000' } });
  await ds.query(
    `INSERT INTO indexer_pairs (chain_id, address, factory, token0, token1, premium_token, created_block, created_block_hash, created_log_index, tx_hash)
     VALUES (31337, $1, $2, $2, $2, $3, 1, $4, 0, $4)`,
    [BENCH_PAIR, MOTHERSHIP, BENCH_USDC, `0x${'00'.repeat(32)}`],
  );
  if (makers.length > 0) {
    const orgs = new OrganizationService(ds);
    const org = await orgs.create({ kind: 'maker', name: 'Bench makers', owner: makers[0] });
    for (const [i, m] of makers.entries()) {
      if (i > 0) await orgs.addMember({ organization_id: org.id, address: m, role: 'member' });
      await ds.query(
        `INSERT INTO indexer_bond_events (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, vault, maker, token, kind, amount, balance)
         VALUES (31337, $1, $2, 0, 0, $2, $3, $4, $5, 'deposit', 1000, 1000)`,
        [i + 1, `0x${(i + 1).toString(16).padStart(64, '0')}`, MOTHERSHIP, m, BENCH_USDC],
      );
    }
  }
  await ds.destroy();
  return db;
}

let placedId = 0;

/**
 * The owner's placements of `orders`, as the indexer would have written its OrderPlaced and
 * OrderIntentPlaced: exclusive fills cover placed orders only.
 */
export async function indexPlacements(databaseUrl: string, orders: readonly { intent_hash: string; owner_address: string; amount: string }[]): Promise<void> {
  const ds = createDataSource({ url: databaseUrl, poolSize: 1 });
  await ds.initialize();
  try {
    for (const o of orders) {
      const id = ++placedId;
      const block = `0x${(1_000_000 + id).toString(16).padStart(64, '0')}`;
      await ds.query(
        `INSERT INTO indexer_order_intents (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, pair, order_id, intent_hash, owner, nonce_prefix, nonce)
         VALUES (31337, $1, $2, 0, 1, $2, $3, $4, $5, $6, 1, $7)`,
        [1_000_000 + id, block, BENCH_PAIR, String(id), o.intent_hash, o.owner_address, String(id)],
      );
      await ds.query(
        `INSERT INTO indexer_orders (chain_id, pair, order_id, owner, option_id, is_buy, price, amount, remaining, state, placed_block, placed_block_hash, placed_log_index, tx_hash, last_block, last_log_index)
         VALUES (31337, $1, $2, $3, 1, true, 1, $4, $5, 'open', $6, $7, 0, $8, $9, 0)`,
        [BENCH_PAIR, String(id), o.owner_address, o.amount, o.amount, 1_000_000 + id, block, block, 1_000_000 + id],
      );
    }
  } finally {
    await ds.destroy();
  }
}

/** One API process (production mode, no devchain) on that database, with its own signing key. */
export function spawnOrdersApi(databaseUrl: string) {
  return spawnServer(
    'bin/main.ts',
    {
      ROLES: 'api',
      PORT: '0',
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: benchPrefix('orders'),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      DEVCHAIN: 'off',
      NODE_ENV: 'production',
      DATABASE_POOL_SIZE: '20',
      JWT_SECRET: randomBytes(32).toString('hex'),
      SERVICE_SIGNER_KEY: `0x${randomBytes(32).toString('hex')}`,
      NONCE_RATE_LIMIT: '100000',
      LOGIN_RATE_LIMIT: '100000',
      ...BENCH_WRITE_LIMITS,
    },
    'api listening',
  );
}
