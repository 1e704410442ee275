import type { OnChainOrderState } from '../../wire/src/order.wire';
import type { Hex } from '../rpc/rpc';

/**
 * The rows projectors make from decoded logs, and how the rows one batch projected into a
 * table combine before they are written (pure: no I/O). Which table takes which rows is
 * declared once, in `DERIVED_TABLES` (indexer/store/derived-tables.ts).
 * Big integers are decimal strings, addresses checksummed, hashes lower-case.
 */
export interface RowPosition {
  block_number: number;
  block_hash: Hex;
  block_timestamp: number;
  log_index: number;
  tx_hash: Hex;
}

export interface PairRow {
  address: Hex;
  factory: Hex;
  token0: Hex;
  token1: Hex;
  premium_token: Hex;
  created_block: number;
  created_block_hash: Hex;
  created_log_index: number;
  tx_hash: Hex;
}

export interface EventRow extends RowPosition {
  address: Hex;
  event_name: string;
  args: Record<string, string | boolean | number[]>;
}

export interface TransferRow extends RowPosition {
  pair: Hex;
  caller: Hex;
  sender: Hex;
  receiver: Hex;
  option_id: string;
  amount: string;
}

/** One log's change of one holder's balance of one option id (a projector's row). */
export interface BalanceChange {
  holder: Hex;
  pair: Hex;
  option_id: string;
  delta: bigint;
  block: number;
}

/** Net change of one holder's balance of one option id in this batch (what is written). */
export interface BalanceDelta {
  holder: Hex;
  pair: Hex;
  option_id: string;
  delta: string;
  /** First and last block of this batch that touched the balance. */
  first_block: number;
  last_block: number;
}

export interface OrderRow {
  pair: Hex;
  order_id: string;
  owner: Hex;
  option_id: string;
  is_buy: boolean;
  price: string;
  amount: string;
  remaining: string;
  state: OnChainOrderState;
  placed_block: number;
  placed_block_hash: Hex;
  placed_log_index: number;
  tx_hash: Hex;
  last_block: number;
  last_log_index: number;
}

/** The state an order placed before this batch ends the batch in, or one log's change of an order's state. */
export interface OrderUpdate {
  pair: Hex;
  order_id: string;
  remaining: string;
  state: OnChainOrderState;
  last_block: number;
  last_log_index: number;
}

export interface SettlementRow extends RowPosition {
  mothership: Hex;
  taker_address_hash: Hex;
  maker: Hex;
  taker: Hex;
  offer_digest: Hex;
  premium_token: Hex;
  package_premium: string;
  maker_pays_taker: boolean;
  nonce: string;
  referrer: Hex;
  directions: number[];
}

/** A projector's row for the order book: an order placed, or a later change of its state. */
export type OrderEvent = { placed: OrderRow } | { change: OrderUpdate };

/** Orders as a batch writes them: those it placed in their final state, and updates of older ones. */
export interface OrderBatch {
  placed: OrderRow[];
  updates: OrderUpdate[];
}

/**
 * Gathers the rows one batch projects into one table, as the logs are projected (so a row
 * folded into another is garbage at once, not held to the end of the batch), into what the
 * table's write takes.
 */
export interface RowCollector<R, B> {
  add(row: R): void;
  done(): B;
}

/** Rows written one per log, in chain order. */
export const inChainOrder =
  <R>() =>
  (): RowCollector<R, R[]> => {
    const rows: R[] = [];
    return {
      add: (row) => void rows.push(row),
      done: () => rows,
    };
  };

/**
 * Folds a batch's balance changes into one net delta per (holder, pair, id), so a batch writes
 * each balance row once however many transfers touched it. A zero net delta is kept: the holder
 * held the id, which the portfolio lists as closed.
 */
export function netBalances(): RowCollector<BalanceChange, BalanceDelta[]> {
  const byKey = new Map<string, Omit<BalanceDelta, 'delta'> & { value: bigint }>();
  return {
    add(c) {
      const key = `${c.holder}|${c.pair}|${c.option_id}`;
      const b = byKey.get(key);
      if (b) {
        b.value += c.delta;
        b.last_block = c.block;
      } else {
        byKey.set(key, { holder: c.holder, pair: c.pair, option_id: c.option_id, value: c.delta, first_block: c.block, last_block: c.block });
      }
    },
    done() {
      const out: BalanceDelta[] = [];
      for (const b of byKey.values()) {
        out.push({ holder: b.holder, pair: b.pair, option_id: b.option_id, delta: b.value.toString(), first_block: b.first_block, last_block: b.last_block });
      }
      return out;
    },
  };
}

/**
 * Folds a batch's order events into each order's final state: an order placed in the batch is
 * written once in the state its later changes leave it; an older order gets one update.
 */
export function finalOrderStates(): RowCollector<OrderEvent, OrderBatch> {
  const placed = new Map<string, OrderRow>();
  const updated = new Map<string, OrderUpdate>();
  return {
    add(e) {
      if ('placed' in e) {
        // A copy: the changes below update it, and the projector's row stays as it was made.
        placed.set(`${e.placed.pair}|${e.placed.order_id}`, { ...e.placed });
        return;
      }
      const c = e.change;
      const key = `${c.pair}|${c.order_id}`;
      const row = placed.get(key) ?? updated.get(key);
      if (!row) {
        updated.set(key, { ...c });
        return;
      }
      row.remaining = c.remaining;
      row.state = c.state;
      row.last_block = c.last_block;
      row.last_log_index = c.last_log_index;
    },
    done: () => ({ placed: [...placed.values()], updates: [...updated.values()] }),
  };
}

/** The owner placed an API-recorded order: its intent hash and the book order it became. */
export interface OrderIntentRow extends RowPosition {
  pair: Hex;
  order_id: string;
  intent_hash: Hex;
  owner: Hex;
  nonce_prefix: string;
  nonce: string;
}

/** An API-signed exclusive fill used on a pair. */
export interface ExclusiveFillUseRow extends RowPosition {
  pair: Hex;
  exclusive_fill_id_hash: Hex;
  maker: Hex;
  reward_destination: Hex;
  intent_data_hash: Hex;
  reward_per_unit: string;
  total_reward: string;
}

/**
 * A BondVault deposit, withdrawal request or withdrawal; `balance` is the maker's bond in that
 * token after it. A request's `amount` is the whole pending amount from then on (until the next
 * request or the withdrawal), and `withdrawable_at` when it may be paid out (unix seconds).
 */
export interface BondEventRow extends RowPosition {
  vault: Hex;
  maker: Hex;
  token: Hex;
  kind: 'deposit' | 'request' | 'withdraw';
  amount: string;
  balance: string;
  withdrawable_at: string | null;
}
