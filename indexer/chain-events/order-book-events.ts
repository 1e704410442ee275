import {
  exclusiveFillUsedEvent,
  orderCancelledEvent,
  orderFilledEvent,
  orderIntentPlacedEvent,
  orderPlacedEvent,
  pairCreatedEvent,
  transferEvent,
} from '../../shared/chain/abis';
import { bool, expectShape, topicAddress, uint, word, wordAddress } from '../decode/log-words';
import { openInterestDelta } from '../projectors/open-interest';
import { rawEvent } from '../projectors/raw-event';
import type { Hex } from '../rpc/rpc';
import type { ProjectedRow } from '../store/derived-tables';
import { eventTable, indexedEvent } from './indexed-event';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/**
 * The order book's events: the factory's pairs, and each pair's ERC-6909 transfers, book orders,
 * API-recorded orders and exclusive fills (docs/ORDERS.md, docs/EXPLORE.md).
 */
export const ORDER_BOOK_EVENTS = eventTable({
  /** PairFactory: a new pair (CLOB) exists; the tailer watches it from its creation block on. */
  PairCreated: indexedEvent({
    abi: pairCreatedEvent,
    emitter: 'factory',
    tables: ['indexer_events', 'indexer_pairs'],
    decode(log) {
      expectShape(log, 2, 3, 'PairCreated');
      const d = log.data;
      return { pair: topicAddress(log.topics[1]), token0: wordAddress(word(d, 0)), token1: wordAddress(word(d, 1)), premiumToken: wordAddress(word(d, 2)) };
    },
    project: (log, at) => [
      rawEvent(log, at),
      {
        table: 'indexer_pairs',
        row: {
          address: log.pair,
          factory: log.meta.address,
          token0: log.token0,
          token1: log.token1,
          premium_token: log.premiumToken,
          created_block: at.block_number,
          created_block_hash: at.block_hash,
          created_log_index: at.log_index,
          tx_hash: at.tx_hash,
        },
      },
    ],
  }),

  /** OptionPair: ERC-6909 transfer (sender 0 mints). Most of the traffic: kept in its own table only. */
  Transfer: indexedEvent({
    abi: transferEvent,
    emitter: 'pair',
    tables: ['indexer_transfers', 'indexer_balances', 'indexer_clob_activity', 'indexer_clob_series'],
    decode(log) {
      expectShape(log, 4, 2, 'Transfer');
      const t = log.topics;
      return {
        caller: wordAddress(word(log.data, 0)),
        sender: topicAddress(t[1]),
        receiver: topicAddress(t[2]),
        id: uint(t[3]),
        amount: uint(word(log.data, 1)),
      };
    },
    project(log, at) {
      const pair = log.meta.address;
      const id = log.id.toString();
      const rows: ProjectedRow[] = [
        {
          table: 'indexer_transfers',
          row: {
            ...at,
            pair,
            caller: log.caller,
            sender: log.sender,
            receiver: log.receiver,
            option_id: id,
            amount: log.amount.toString(),
          },
        },
      ];
      // The zero address holds nothing: a mint only credits, a burn only debits.
      if (log.sender !== ZERO_ADDRESS)
        rows.push({ table: 'indexer_balances', row: { holder: log.sender, pair, option_id: id, delta: -log.amount, block: at.block_number } });
      if (log.receiver !== ZERO_ADDRESS)
        rows.push({ table: 'indexer_balances', row: { holder: log.receiver, pair, option_id: id, delta: log.amount, block: at.block_number } });
      rows.push(
        // Its activity row is derived from the transfer's own row (writeActivity).
        { table: 'indexer_clob_activity', row: at },
        {
          table: 'indexer_clob_series',
          row: { pair, option_id: id, block: at.block_number, oi_delta: openInterestDelta(log.sender, log.receiver, log.amount), placed: 0, transfer: 1 },
        },
      );
      return rows;
    },
  }),

  /** OptionPair: an order entered the book. */
  OrderPlaced: indexedEvent({
    abi: orderPlacedEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_orders', 'indexer_clob_activity', 'indexer_clob_series', 'indexer_clob_levels'],
    decode(log) {
      expectShape(log, 4, 3, 'OrderPlaced');
      const t = log.topics;
      const d = log.data;
      return { orderId: uint(t[1]), owner: topicAddress(t[2]), id: uint(t[3]), isBuy: bool(word(d, 0)), price: uint(word(d, 1)), amount: uint(word(d, 2)) };
    },
    project: (log, at) => [
      rawEvent(log, at),
      {
        table: 'indexer_orders',
        row: {
          placed: {
            pair: log.meta.address,
            order_id: log.orderId.toString(),
            owner: log.owner,
            option_id: log.id.toString(),
            is_buy: log.isBuy,
            price: log.price.toString(),
            amount: log.amount.toString(),
            remaining: log.amount.toString(),
            state: 'open',
            placed_block: at.block_number,
            placed_block_hash: at.block_hash,
            placed_log_index: at.log_index,
            tx_hash: at.tx_hash,
            last_block: at.block_number,
            last_log_index: at.log_index,
          },
        },
      },
      { table: 'indexer_clob_activity', row: at },
      {
        table: 'indexer_clob_series',
        row: { pair: log.meta.address, option_id: log.id.toString(), block: at.block_number, oi_delta: 0n, placed: 1, transfer: 0 },
      },
    ],
  }),

  /** OptionPair: part or all of an order filled; `remaining` is what is left open. */
  OrderFilled: indexedEvent({
    abi: orderFilledEvent,
    emitter: 'pair',
    tables: [
      'indexer_events',
      'indexer_orders',
      'indexer_clob_activity',
      'indexer_clob_daily',
      'indexer_clob_traders',
      'indexer_clob_pair_daily',
      'indexer_clob_trader_sketch',
      'indexer_clob_levels',
    ],
    decode(log) {
      expectShape(log, 4, 4, 'OrderFilled');
      const t = log.topics;
      const d = log.data;
      return {
        orderId: uint(t[1]),
        owner: topicAddress(t[2]),
        filler: topicAddress(t[3]),
        id: uint(word(d, 0)),
        amount: uint(word(d, 1)),
        price: uint(word(d, 2)),
        remaining: uint(word(d, 3)),
      };
    },
    project: (log, at) => [
      rawEvent(log, at),
      {
        table: 'indexer_orders',
        row: {
          change: {
            pair: log.meta.address,
            order_id: log.orderId.toString(),
            remaining: log.remaining.toString(),
            state: log.remaining === 0n ? 'filled' : 'open',
            last_block: at.block_number,
            last_log_index: at.log_index,
          },
        },
      },
      // The side is the resting order's: read from the book when the row is derived (writeActivity).
      { table: 'indexer_clob_activity', row: at },
      {
        table: 'indexer_clob_daily',
        row: {
          pair: log.meta.address,
          option_id: log.id.toString(),
          block_timestamp: at.block_timestamp,
          amount: log.amount,
          price: log.price,
          maker: log.owner,
          taker: log.filler,
        },
      },
    ],
  }),

  /** OptionPair: an order left the book; `remaining` was unfilled. */
  OrderCancelled: indexedEvent({
    abi: orderCancelledEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_orders', 'indexer_clob_activity', 'indexer_clob_levels'],
    decode(log) {
      expectShape(log, 3, 1, 'OrderCancelled');
      return { orderId: uint(log.topics[1]), owner: topicAddress(log.topics[2]), remaining: uint(word(log.data, 0)) };
    },
    project: (log, at) => [
      rawEvent(log, at),
      {
        table: 'indexer_orders',
        row: {
          change: {
            pair: log.meta.address,
            order_id: log.orderId.toString(),
            remaining: '0',
            state: 'cancelled',
            last_block: at.block_number,
            last_log_index: at.log_index,
          },
        },
      },
      // Series, side and price are the order's: read from the book when the row is derived (writeActivity).
      { table: 'indexer_clob_activity', row: at },
    ],
  }),

  /** OptionPair: the owner placed an API-recorded order (follows its OrderPlaced): intent hash -> book order. */
  OrderIntentPlaced: indexedEvent({
    abi: orderIntentPlacedEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_order_intents'],
    decode(log) {
      expectShape(log, 4, 2, 'OrderIntentPlaced');
      const t = log.topics;
      return {
        orderId: uint(t[1]),
        intentHash: t[2].toLowerCase() as Hex,
        owner: topicAddress(t[3]),
        noncePrefix: uint(word(log.data, 0)),
        nonce: uint(word(log.data, 1)),
      };
    },
    project: (log, at) => [
      rawEvent(log, at),
      {
        table: 'indexer_order_intents',
        row: {
          ...at,
          pair: log.meta.address,
          order_id: log.orderId.toString(),
          intent_hash: log.intentHash,
          owner: log.owner,
          nonce_prefix: log.noncePrefix.toString(),
          nonce: log.nonce.toString(),
        },
      },
    ],
  }),

  /** OptionPair: an API-signed exclusive fill was used: the fill is used and its orders filled (a rollback reopens them). */
  ExclusiveFillUsed: indexedEvent({
    abi: exclusiveFillUsedEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_exclusive_fill_uses', 'exclusive_fills', 'orders'],
    decode(log) {
      expectShape(log, 4, 3, 'ExclusiveFillUsed');
      const t = log.topics;
      const d = log.data;
      return {
        exclusiveFillId: t[1].toLowerCase() as Hex,
        maker: topicAddress(t[2]),
        rewardDestination: topicAddress(t[3]),
        intentDataHash: `0x${word(d, 0).toLowerCase()}` as Hex,
        rewardPerUnit: uint(word(d, 1)),
        totalReward: uint(word(d, 2)),
      };
    },
    project: (log, at) => [
      rawEvent(log, at),
      {
        table: 'indexer_exclusive_fill_uses',
        row: {
          ...at,
          pair: log.meta.address,
          exclusive_fill_id_hash: log.exclusiveFillId,
          maker: log.maker,
          reward_destination: log.rewardDestination,
          intent_data_hash: log.intentDataHash,
          reward_per_unit: log.rewardPerUnit.toString(),
          total_reward: log.totalReward.toString(),
        },
      },
    ],
  }),
});
