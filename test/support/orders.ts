import type { DataSource } from 'typeorm';
import { FIXTURE_PAIR, FIXTURE_USDC } from './quotes';

let nonce = BigInt(Date.now()) * 1000n;

/** A valid order body for `owner` on the fixture pair; `edit` overrides fields after it is built. */
export function orderBody(
  owner: string,
  opts: { pair?: string; to?: string; now?: number; nonce?: bigint; chainId?: number; orderOnExpiry?: 0 | 1; intentExpiry?: number } = {},
) {
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const pair = opts.pair ?? FIXTURE_PAIR;
  const expiry = now + 30 * 86400;
  return {
    chain_id: opts.chainId ?? 31337,
    amount: '1000000000000000000',
    destination: { from: owner, to: opts.to ?? pair, nonce: { prefix: 7, nonce: (opts.nonce ?? ++nonce).toString() } },
    data: {
      options6909Contract: pair,
      rewardLimits: { fillerRewardMaxPerMintedUnit: '1000', fillerRewardMinPerMintedUnit: '10' },
      pairKey: { optionType: 0, startExecutionTimeStamp: 0, expiryTimestamp: expiry },
      decayPremium: { premiumStart: '125000000', premiumEnd: '100000000', decayRateBpsPerSecond: 2 },
      decayStrike: { strikeStart: '3000000000000000000000', strikeEnd: '2900000000000000000000', decayRateBpsPerSecond: 1 },
      decayMinFill: { startMinFill: '1000', decayRatePerSecond: '1' },
      buyOrSell: 0,
      intentStartTime: now - 60,
      intentExpiry: opts.intentExpiry ?? now + 3600,
      orderOnExpiry: opts.orderOnExpiry ?? 0,
    },
  };
}

/** What the indexer would have written for the fixture pair: the API reads the pair's premium token there. */
export async function indexFixturePair(db: DataSource, chainId = 31337, pair = FIXTURE_PAIR, premiumToken = FIXTURE_USDC): Promise<void> {
  await db.query(
    `INSERT INTO indexer_pairs (chain_id, address, factory, token0, token1, premium_token, created_block, created_block_hash, created_log_index, tx_hash)
     VALUES ($1, $2, $3, $3, $3, $4, 1, $5, 0, $5) ON CONFLICT DO NOTHING`,
    [chainId, pair, '0x0000000000000000000000000000000000000001', premiumToken, `0x${'00'.repeat(32)}`],
  );
}

let bondBlock = 1;

/** A BondVault event as the indexer would have written it: `balance` is the maker's bond in `token` from now on. */
export async function indexBond(db: DataSource, maker: string, token: string, balance: bigint, chainId = 31337): Promise<void> {
  const block = ++bondBlock;
  await db.query(
    `INSERT INTO indexer_bond_events (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, vault, maker, token, kind, amount, balance)
     VALUES ($1, $2, $3, 0, 0, $3, $4, $5, $6, 'deposit', $7, $7)`,
    [chainId, block, `0x${block.toString(16).padStart(64, '0')}`, '0x0000000000000000000000000000000000000002', maker, token, balance.toString()],
  );
}

let placedOrderId = 1_000_000n;

/**
 * An owner's placement of a recorded order, as the indexer would have written its OrderPlaced
 * and OrderIntentPlaced: exclusive fills cover placed orders only.
 */
export async function indexPlacement(
  db: DataSource,
  order: {
    chain_id: number;
    intent_hash: string;
    owner_address: string;
    amount: string;
    destination: { to: string; nonce: { prefix: number; nonce: string } };
    data: { options6909Contract: string };
  },
): Promise<void> {
  const id = ++placedOrderId;
  const block = ++bondBlock;
  await db.query(
    `INSERT INTO indexer_order_intents (chain_id, block_number, block_hash, block_timestamp, log_index, tx_hash, pair, order_id, intent_hash, owner, nonce_prefix, nonce)
     VALUES ($1, $2, $3, 0, 1, $3, $4, $5, $6, $7, $8, $9)`,
    [
      order.chain_id,
      block,
      `0x${block.toString(16).padStart(64, '0')}`,
      order.data.options6909Contract,
      id.toString(),
      order.intent_hash,
      order.owner_address,
      order.destination.nonce.prefix,
      order.destination.nonce.nonce,
    ],
  );
  await db.query(
    `INSERT INTO indexer_orders (chain_id, pair, order_id, owner, option_id, is_buy, price, amount, remaining, state, placed_block, placed_block_hash, placed_log_index, tx_hash, last_block, last_log_index)
     VALUES ($1, $2, $3, $4, 1, true, 1, $5, $5, 'open', $6, $7, 0, $7, $6, 0)`,
    [order.chain_id, order.data.options6909Contract, id.toString(), order.owner_address, order.amount, block, `0x${block.toString(16).padStart(64, '0')}`],
  );
}
