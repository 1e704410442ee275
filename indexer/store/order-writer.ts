import type { BondEventRow, ExclusiveFillUseRow, OrderIntentRow } from '../types';
import { markFillsUsed } from '../../shared/orders';
import { insertMany, type Queryable } from './sql';
import { chainColumn, position } from './changeset-writer';

/**
 * How the rows of orders, exclusive fills and bonds are written (called through
 * DERIVED_TABLES). The fill uses' write marks their fills used and their orders filled, in the
 * batch's transaction; an order whose book order closed otherwise (a plain fill, the owner's
 * cancel) reads that state through its intent (shared/orders, ORDER_SOURCE).
 */

export async function writeOrderIntents(m: Queryable, chainId: number, rows: OrderIntentRow[]): Promise<void> {
  await insertMany(
    m,
    'indexer_order_intents',
    rows,
    [
      ...position<OrderIntentRow>(),
      { name: 'pair', type: 'text' },
      { name: 'order_id', type: 'numeric' },
      { name: 'intent_hash', type: 'text' },
      { name: 'owner', type: 'text' },
      { name: 'nonce_prefix', type: 'numeric' },
      { name: 'nonce', type: 'numeric' },
    ],
    chainColumn(chainId),
  );
}

export async function writeFillUses(m: Queryable, chainId: number, rows: ExclusiveFillUseRow[]): Promise<void> {
  await insertMany(
    m,
    'indexer_exclusive_fill_uses',
    rows,
    [
      ...position<ExclusiveFillUseRow>(),
      { name: 'pair', type: 'text' },
      { name: 'exclusive_fill_id_hash', type: 'text' },
      { name: 'maker', type: 'text' },
      { name: 'reward_destination', type: 'text' },
      { name: 'intent_data_hash', type: 'text' },
      { name: 'reward_per_unit', type: 'numeric' },
      { name: 'total_reward', type: 'numeric' },
    ],
    chainColumn(chainId),
  );
  await markFillsUsed(
    m,
    chainId,
    rows.map((r) => ({ exclusive_fill_id_hash: r.exclusive_fill_id_hash, tx_hash: r.tx_hash, block_number: r.block_number })),
  );
}

export async function writeBondEvents(m: Queryable, chainId: number, rows: BondEventRow[]): Promise<void> {
  await insertMany(
    m,
    'indexer_bond_events',
    rows,
    [
      ...position<BondEventRow>(),
      { name: 'vault', type: 'text' },
      { name: 'maker', type: 'text' },
      { name: 'token', type: 'text' },
      { name: 'kind', type: 'text' },
      { name: 'amount', type: 'numeric' },
      { name: 'balance', type: 'numeric' },
      { name: 'withdrawable_at', type: 'bigint' },
    ],
    chainColumn(chainId),
  );
}
