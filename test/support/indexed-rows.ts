import type { Hex } from 'viem';
import type { RowPosition } from '../../indexer/types';
import type { ProjectedRow } from '../../indexer/store/derived-tables';

/**
 * Rows as the indexer's projectors make them for a generated history: the stored event or
 * transfer, the mark that the log makes activity (its activity row is derived in SQL from the
 * stored row when the batch is written), and the rollups' shares.
 */

/** A fill of a generated history. */
export interface GeneratedFill {
  pair: Hex;
  option_id: string;
  order_id: string;
  price: bigint;
  amount: bigint;
  maker: Hex;
  taker: Hex;
}

/** One fill as the indexer projects it: its `OrderFilled` event, its activity and its share of the per-day rollups. */
export function fillRows(p: RowPosition, f: GeneratedFill): ProjectedRow[] {
  const args = {
    orderId: f.order_id,
    owner: f.maker,
    filler: f.taker,
    id: f.option_id,
    amount: f.amount.toString(),
    price: f.price.toString(),
    remaining: '0',
  };
  return [
    { table: 'indexer_events', row: { ...p, address: f.pair, event_name: 'OrderFilled', args } },
    { table: 'indexer_clob_activity', row: p },
    {
      table: 'indexer_clob_daily',
      row: { pair: f.pair, option_id: f.option_id, block_timestamp: p.block_timestamp, amount: f.amount, price: f.price, maker: f.maker, taker: f.taker },
    },
  ];
}

/** An order placed: its `OrderPlaced` event and its activity (the series' count is the caller's). */
export function placedRows(
  p: RowPosition,
  o: { pair: Hex; option_id: string; order_id: string; is_buy: boolean; price: string; amount: string; owner: Hex },
): ProjectedRow[] {
  const args = { orderId: o.order_id, owner: o.owner, id: o.option_id, isBuy: o.is_buy, price: o.price, amount: o.amount };
  return [
    { table: 'indexer_events', row: { ...p, address: o.pair, event_name: 'OrderPlaced', args } },
    { table: 'indexer_clob_activity', row: p },
  ];
}

/** An ERC-6909 transfer (sender zero: a mint): its row and its activity (balances and series are the caller's). */
export function transferRows(p: RowPosition, t: { pair: Hex; option_id: string; amount: string; sender: Hex; receiver: Hex }): ProjectedRow[] {
  return [
    {
      table: 'indexer_transfers',
      row: { ...p, pair: t.pair, caller: t.sender, sender: t.sender, receiver: t.receiver, option_id: t.option_id, amount: t.amount },
    },
    { table: 'indexer_clob_activity', row: p },
  ];
}
