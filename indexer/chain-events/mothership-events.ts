import { decodeEventLog } from 'viem';
import { dutchFilledEvent, packageExecutedEvent, serviceSignerSetEvent } from '../../shared/chain/abis';
import { bool, checksum, expectShape, topicAddress, word } from '../decode/log-words';
import { rawEvent } from '../projectors/raw-event';
import type { Hex } from '../rpc/rpc';
import { eventTable, indexedEvent } from './indexed-event';

/**
 * The Mothership's events: the settlements of package offers and of Dutch requests (each fills
 * its quote), and the service signer its owner registers (docs/PROTOCOL.md, docs/DUTCH.md).
 */
export const MOTHERSHIP_EVENTS = eventTable({
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
