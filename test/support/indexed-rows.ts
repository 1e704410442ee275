import type { Hex } from 'viem';
import type { RowPosition } from '../../indexer/types';
import type { ProjectedRow } from '../../indexer/store/derived-tables';

/** A fill of a generated history. */
export interface GeneratedFill {
  pair: Hex;
  option_id: string;
  order_id: string;
  is_buy: boolean;
  price: bigint;
  amount: bigint;
  maker: Hex;
  taker: Hex;
}

/** One fill as the indexer projects it: its activity row and its share of the per-day rollups. */
export function fillRows(p: RowPosition, f: GeneratedFill): ProjectedRow[] {
  return [
    {
      table: 'indexer_clob_activity',
      row: {
        ...p,
        pair: f.pair,
        kind: 'filled',
        option_id: f.option_id,
        order_id: f.order_id,
        is_buy: f.is_buy,
        price: f.price.toString(),
        amount: f.amount.toString(),
        remaining: '0',
        account: f.maker,
        counterparty: f.taker,
      },
    },
    {
      table: 'indexer_clob_daily',
      row: { pair: f.pair, option_id: f.option_id, block_timestamp: p.block_timestamp, amount: f.amount, price: f.price, maker: f.maker, taker: f.taker },
    },
  ];
}
