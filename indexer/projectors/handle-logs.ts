import type { DecodedLog, LogMeta } from '../decode/decode-log';
import type { Hex } from '../rpc/rpc';
import {
  emptyChangeset,
  type BalanceDelta,
  type Changeset,
  type EventRow,
  type OrderRow,
  type OrderUpdate,
  type RowPosition,
} from './changeset';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** A log's arguments as JSON: big integers become decimal strings. */
function eventArgs(log: DecodedLog): EventRow['args'] {
  const out: EventRow['args'] = {};
  const fields = log as unknown as Record<string, unknown>;
  for (const k in fields) {
    if (k === 'kind' || k === 'meta') continue;
    const v = fields[k];
    out[k] = typeof v === 'bigint' ? v.toString() : (v as string | boolean | number[]);
  }
  return out;
}

function position(meta: LogMeta, timestamps: ReadonlyMap<number, number>): RowPosition {
  const ts = timestamps.get(meta.blockNumber);
  if (ts === undefined) throw new Error(`no timestamp for block ${meta.blockNumber}`);
  return { block_number: meta.blockNumber, block_hash: meta.blockHash, block_timestamp: ts, log_index: meta.logIndex, tx_hash: meta.txHash };
}

/**
 * Everything a batch of decoded logs changes. Pure: the same logs (in chain order) always give
 * the same changeset. Balances are folded into one net delta per (holder, pair, id) and orders
 * into their final state, so a batch writes each row once however many logs touched it.
 */
export function handleLogs(logs: readonly DecodedLog[], timestamps: ReadonlyMap<number, number>): Changeset {
  const out = emptyChangeset();
  const balances = new Map<string, BalanceDelta & { value: bigint }>();
  const placed = new Map<string, OrderRow>();
  const updated = new Map<string, OrderUpdate>();

  const addBalance = (holder: Hex, pair: Hex, id: string, delta: bigint, block: number) => {
    if (holder === ZERO_ADDRESS) return;
    const key = `${holder}|${pair}|${id}`;
    const b = balances.get(key);
    if (b) {
      b.value += delta;
      b.last_block = block;
    } else {
      balances.set(key, { holder, pair, option_id: id, delta: '', value: delta, first_block: block, last_block: block });
    }
  };

  /** The order row this batch is building for `pair`/`orderId`: a fresh one or an update. */
  const touchOrder = (pair: Hex, orderId: bigint, meta: LogMeta): OrderRow | OrderUpdate => {
    const key = `${pair}|${orderId}`;
    const row = placed.get(key) ?? updated.get(key);
    if (row) return row;
    const update: OrderUpdate = { pair, order_id: orderId.toString(), remaining: '0', state: 'open', last_block: meta.blockNumber, last_log_index: meta.logIndex };
    updated.set(key, update);
    return update;
  };

  for (const log of logs) {
    const pos = position(log.meta, timestamps);
    const emitter = log.meta.address;
    // Transfers are most of the traffic and have their own table; every other event is kept raw.
    if (log.kind !== 'Transfer') {
      out.events.push({
        block_number: pos.block_number,
        block_hash: pos.block_hash,
        block_timestamp: pos.block_timestamp,
        log_index: pos.log_index,
        tx_hash: pos.tx_hash,
        address: emitter,
        event_name: log.kind,
        args: eventArgs(log),
      });
    }
    switch (log.kind) {
      case 'PairCreated':
        out.pairs.push({
          address: log.pair,
          factory: emitter,
          token0: log.token0,
          token1: log.token1,
          premium_token: log.premiumToken,
          created_block: pos.block_number,
          created_block_hash: pos.block_hash,
          created_log_index: pos.log_index,
          tx_hash: pos.tx_hash,
        });
        break;
      case 'Transfer': {
        const id = log.id.toString();
        out.transfers.push({
          block_number: pos.block_number,
          block_hash: pos.block_hash,
          block_timestamp: pos.block_timestamp,
          log_index: pos.log_index,
          tx_hash: pos.tx_hash,
          pair: emitter,
          caller: log.caller,
          sender: log.sender,
          receiver: log.receiver,
          option_id: id,
          amount: log.amount.toString(),
        });
        addBalance(log.sender, emitter, id, -log.amount, pos.block_number);
        addBalance(log.receiver, emitter, id, log.amount, pos.block_number);
        break;
      }
      case 'OrderPlaced':
        placed.set(`${emitter}|${log.orderId}`, {
          pair: emitter,
          order_id: log.orderId.toString(),
          owner: log.owner,
          option_id: log.id.toString(),
          is_buy: log.isBuy,
          price: log.price.toString(),
          amount: log.amount.toString(),
          remaining: log.amount.toString(),
          state: 'open',
          placed_block: pos.block_number,
          placed_block_hash: pos.block_hash,
          placed_log_index: pos.log_index,
          tx_hash: pos.tx_hash,
          last_block: pos.block_number,
          last_log_index: pos.log_index,
        });
        break;
      case 'OrderFilled': {
        const row = touchOrder(emitter, log.orderId, log.meta);
        row.remaining = log.remaining.toString();
        row.state = log.remaining === 0n ? 'filled' : 'open';
        row.last_block = pos.block_number;
        row.last_log_index = pos.log_index;
        break;
      }
      case 'OrderCancelled': {
        const row = touchOrder(emitter, log.orderId, log.meta);
        row.remaining = '0';
        row.state = 'cancelled';
        row.last_block = pos.block_number;
        row.last_log_index = pos.log_index;
        break;
      }
      case 'PackageExecuted':
        out.settlements.push({
          ...pos,
          mothership: emitter,
          taker_address_hash: log.takerAddressHash,
          maker: log.maker,
          taker: log.taker,
          offer_digest: log.offerDigest,
          premium_token: log.premiumToken,
          package_premium: log.packagePremium.toString(),
          maker_pays_taker: log.makerPaysTaker,
          nonce: log.nonce.toString(),
          referrer: log.referrer,
          directions: log.directions,
        });
        break;
    }
  }
  // A zero net delta is still written: the holder held the id, which the portfolio lists as closed.
  for (const { value, ...row } of balances.values()) out.balances.push({ ...row, delta: value.toString() });
  out.ordersPlaced = [...placed.values()];
  out.orderUpdates = [...updated.values()];
  return out;
}
