import { decodeEventLog } from 'viem';
import {
  dutchFilledEvent,
  orderCancelledEvent,
  orderFilledEvent,
  orderPlacedEvent,
  packageExecutedEvent,
  pairCreatedEvent,
  serviceSignerSetEvent,
  transferEvent,
} from '../../shared/chain/abis';
import { bool, checksum, expectShape, topicAddress, uint, word, wordAddress } from '../decode/log-words';
import { rawEvent } from '../projectors/raw-event';
import type { Hex } from '../rpc/rpc';
import type { ProjectedRow } from '../store/derived-tables';
import { indexedEvent, type IndexedEvent } from './indexed-event';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

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
    tables: ['indexer_transfers', 'indexer_balances'],
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
      return rows;
    },
  }),

  /** OptionPair: an order entered the book. */
  OrderPlaced: indexedEvent({
    abi: orderPlacedEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_orders'],
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
    ],
  }),

  /** OptionPair: part or all of an order filled; `remaining` is what is left open. */
  OrderFilled: indexedEvent({
    abi: orderFilledEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_orders'],
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
    ],
  }),

  /** OptionPair: an order left the book; `remaining` was unfilled. */
  OrderCancelled: indexedEvent({
    abi: orderCancelledEvent,
    emitter: 'pair',
    tables: ['indexer_events', 'indexer_orders'],
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
    ],
  }),

  /**
   * Mothership: its owner registered or revoked a service signer (docs/PROTOCOL.md, "Service
   * signer"). Kept as a raw event only: an auditable record of whose awards and exclusive fills
   * the chain accepted, and when.
   */
  ServiceSignerSet: indexedEvent({
    abi: serviceSignerSetEvent,
    emitter: 'mothership',
    tables: ['indexer_events'],
    decode(log) {
      expectShape(log, 2, 1, 'ServiceSignerSet');
      return { signer: topicAddress(log.topics[1]), allowed: bool(word(log.data, 0)) };
    },
    project: (log, at) => [rawEvent(log, at)],
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

  /**
   * Mothership: a Dutch request filled. It is a settlement like a package's: its row carries the
   * request digest where a package's carries the taker hash, and the quote state module finds the
   * Dutch quote by that digest (docs/DUTCH.md); a rollback reopens it the same way.
   */
  DutchFilled: indexedEvent({
    abi: dutchFilledEvent,
    emitter: 'mothership',
    tables: ['indexer_events', 'indexer_settlements', 'quotes'],
    decode(log) {
      const { args } = decodeEventLog({ abi: [dutchFilledEvent], topics: log.topics as [Hex, ...Hex[]], data: log.data, strict: true });
      return {
        requestDigest: args.requestDigest.toLowerCase() as Hex,
        taker: checksum(args.taker.toLowerCase()),
        filler: checksum(args.filler.toLowerCase()),
        takerNonce: args.takerNonce,
        premiumToken: checksum(args.premiumToken.toLowerCase()),
        premium: args.premium,
        makerPaysTaker: args.makerPaysTaker,
        exclusive: args.exclusive,
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
          taker_address_hash: log.requestDigest,
          maker: log.filler,
          taker: log.taker,
          offer_digest: log.requestDigest,
          premium_token: log.premiumToken,
          package_premium: log.premium.toString(),
          maker_pays_taker: log.makerPaysTaker,
          nonce: log.takerNonce.toString(),
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
