import { decodeEventLog } from 'viem';
import {
  orderCancelledEvent,
  orderFilledEvent,
  orderPlacedEvent,
  packageExecutedEvent,
  pairCreatedEvent,
  transferEvent,
} from '../../shared/chain/abis';
import { bool, checksum, expectShape, topicAddress, uint, word, wordAddress } from '../decode/log-words';
import { rawEvent } from '../projectors/raw-event';
import { openInterestDelta } from '../projectors/clob-explore';
import type { Hex } from '../rpc/rpc';
import type { ProjectedRow } from '../store/derived-tables';
import { indexedEvent, type IndexedEvent } from './indexed-event';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Activity fields a row leaves empty unless it names them (series, order, side, price, counterparty). */
const noOrder = { option_id: null, order_id: null, is_buy: null, price: null, remaining: null, counterparty: null } as const;

/** Checks at compile time that each entry's key is its ABI item's name. */
const registry = <R extends { [K in keyof R]: IndexedEvent<K & string, object> }>(r: R): R => r;

/**
 * Every event the indexer reads, each declared once: ABI item, emitter, decoder, projector and
 * the derived tables a rollback must clear for it. Decoding, the `eth_getLogs` topic filter,
 * projection and the explore feeds all read this table; adding an event is one entry here
 * (plus a migration when its rows need a table of their own: see docs/INDEXER.md).
 */
export const INDEXED_EVENTS = registry({
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
      return { caller: wordAddress(word(log.data, 0)), sender: topicAddress(t[1]), receiver: topicAddress(t[2]), id: uint(t[3]), amount: uint(word(log.data, 1)) };
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
      if (log.sender !== ZERO_ADDRESS) rows.push({ table: 'indexer_balances', row: { holder: log.sender, pair, option_id: id, delta: -log.amount, block: at.block_number } });
      if (log.receiver !== ZERO_ADDRESS) rows.push({ table: 'indexer_balances', row: { holder: log.receiver, pair, option_id: id, delta: log.amount, block: at.block_number } });
      rows.push(
        { table: 'indexer_clob_activity', row: { ...noOrder, ...at, pair, kind: 'transfer', option_id: id, amount: log.amount.toString(), account: log.sender, counterparty: log.receiver } },
        { table: 'indexer_clob_series', row: { pair, option_id: id, block: at.block_number, oi_delta: openInterestDelta(log.sender, log.receiver, log.amount), placed: 0, transfer: 1 } },
      );
      return rows;
    },
  }),

  /** OptionPair: an order entered the book. */
  OrderPlaced: indexedEvent({
    abi: orderPlacedEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_orders', 'indexer_clob_activity', 'indexer_clob_series'],
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
      {
        table: 'indexer_clob_activity',
        row: {
          ...at,
          pair: log.meta.address,
          kind: 'placed',
          option_id: log.id.toString(),
          order_id: log.orderId.toString(),
          is_buy: log.isBuy,
          price: log.price.toString(),
          amount: log.amount.toString(),
          remaining: log.amount.toString(),
          account: log.owner,
          counterparty: null,
        },
      },
      { table: 'indexer_clob_series', row: { pair: log.meta.address, option_id: log.id.toString(), block: at.block_number, oi_delta: 0n, placed: 1, transfer: 0 } },
    ],
  }),

  /** OptionPair: part or all of an order filled; `remaining` is what is left open. */
  OrderFilled: indexedEvent({
    abi: orderFilledEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_orders', 'indexer_clob_activity', 'indexer_clob_daily', 'indexer_clob_traders'],
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
      {
        table: 'indexer_clob_activity',
        row: {
          ...at,
          pair: log.meta.address,
          kind: 'filled',
          option_id: log.id.toString(),
          order_id: log.orderId.toString(),
          // The side is the resting order's: read from the book when the row is written.
          is_buy: null,
          price: log.price.toString(),
          amount: log.amount.toString(),
          remaining: log.remaining.toString(),
          account: log.owner,
          counterparty: log.filler,
        },
      },
      {
        table: 'indexer_clob_daily',
        row: { pair: log.meta.address, option_id: log.id.toString(), block_timestamp: at.block_timestamp, amount: log.amount, price: log.price, maker: log.owner, taker: log.filler },
      },
    ],
  }),

  /** OptionPair: an order left the book; `remaining` was unfilled. */
  OrderCancelled: indexedEvent({
    abi: orderCancelledEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_orders', 'indexer_clob_activity'],
    decode(log) {
      expectShape(log, 3, 1, 'OrderCancelled');
      return { orderId: uint(log.topics[1]), owner: topicAddress(log.topics[2]), remaining: uint(word(log.data, 0)) };
    },
    project: (log, at) => [
      rawEvent(log, at),
      {
        table: 'indexer_orders',
        row: { change: { pair: log.meta.address, order_id: log.orderId.toString(), remaining: '0', state: 'cancelled', last_block: at.block_number, last_log_index: at.log_index } },
      },
      {
        table: 'indexer_clob_activity',
        // Series, side and price are the order's: read from the book when the row is written. `amount` is what was left.
        row: { ...noOrder, ...at, pair: log.meta.address, kind: 'cancelled', order_id: log.orderId.toString(), amount: log.remaining.toString(), remaining: '0', account: log.owner },
      },
    ],
  }),

  /** Mothership: a package offer settled, i.e. the quote with this taker hash is filled. */
  PackageExecuted: indexedEvent({
    abi: packageExecutedEvent,
    emitter: 'mothership',
    // The settlement fills its quote (written with the settlements); a rollback reopens it.
    tables: ['indexer_events', 'indexer_settlements', 'quotes'],
    // `uint8[] directions` is dynamic: viem's decoder reads it; it is a small share of the traffic.
    decode(log) {
      const { args } = decodeEventLog({ abi: [packageExecutedEvent], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true });
      return {
        takerAddressHash: args.takerAddressHash.toLowerCase() as Hex,
        maker: checksum(args.maker.toLowerCase()),
        taker: checksum(args.taker.toLowerCase()),
        offerDigest: args.offerDigest.toLowerCase() as Hex,
        premiumToken: checksum(args.premiumToken.toLowerCase()),
        packagePremium: args.packagePremium,
        makerPaysTaker: args.makerPaysTaker,
        nonce: args.nonce,
        referrer: checksum(args.referrer.toLowerCase()),
        directions: args.directions.map(Number),
      };
    },
    project: (log, at) => [
      rawEvent(log, at),
      {
        table: 'indexer_settlements',
        row: {
          ...at,
          mothership: log.meta.address,
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
        },
      },
    ],
  }),
});

type Registry = typeof INDEXED_EVENTS;

/** The name of an event the indexer reads. */
export type EventKind = keyof Registry;

/** Whether `name` is an event the indexer reads. */
export const isEventKind = (name: string): name is EventKind => Object.prototype.hasOwnProperty.call(INDEXED_EVENTS, name);
