import { decodeEventLog } from 'viem';
import {
  collateralAddedEvent,
  collateralWithdrawnEvent,
  loanLiquidatedEvent,
  loanOpenedEvent,
  loanRepaidEvent,
  priceUpdatedEvent,
  bondDepositedEvent,
  bondWithdrawalRequestedEvent,
  bondWithdrawnEvent,
  exclusiveFillUsedEvent,
  orderIntentPlacedEvent,
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
import { openInterestDelta } from '../projectors/open-interest';
import { rawEvent } from '../projectors/raw-event';
import type { Hex, RpcLog } from '../rpc/rpc';
import type { ProjectedRow } from '../store/derived-tables';
import type { LoanChange, LoanEventRow, LogMeta, RowPosition } from '../types';
import { indexedEvent, type IndexedEvent } from './indexed-event';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** A loan event row of an older loan: its parties come from the loan when written (null here). */
const loanEvent = (
  market: Hex,
  loanId: bigint,
  at: RowPosition,
  e: Pick<LoanEventRow, 'kind' | 'actor' | 'collateral_delta' | 'collateral_after' | 'principal_delta' | 'principal_after' | 'interest_paid'>,
): ProjectedRow => ({
  table: 'indexer_loan_events',
  row: { ...at, market, loan_id: loanId.toString(), borrower: null, lender: null, collateral_token: null, debt_token: null, ...e },
});

/** A change of a loan's state by one of its events. */
const loanChange = (
  market: Hex,
  loanId: bigint,
  at: RowPosition,
  c: Pick<LoanChange, 'collateral_amount' | 'principal_outstanding' | 'interest_paid' | 'state'>,
): ProjectedRow => ({
  table: 'indexer_loans',
  row: {
    change: {
      market,
      loan_id: loanId.toString(),
      ...c,
      last_block: at.block_number,
      last_log_index: at.log_index,
      closed_at: c.state === 'active' ? null : at.block_timestamp,
    },
  },
});
/** Activity fields a row leaves empty unless it names them (series, order, side, price, counterparty). */
const noOrder = { option_id: null, order_id: null, is_buy: null, price: null, remaining: null, counterparty: null } as const;

/** Checks at compile time that each entry's key is its ABI item's name. */
const eventTable = <R extends { [K in keyof R]: IndexedEvent<K & string, object> }>(r: R): R => r;

/**
 * Every event the indexer reads, each declared once: ABI item, emitter, decoder, projector and
 * the derived tables a rollback must clear for it. Decoding, the `eth_getLogs` topic filter,
 * projection and the explore feeds all read this table; adding an event is one entry here
 * (plus a migration when its rows need a table of their own: see docs/INDEXER.md).
 */
export const INDEXED_EVENTS = eventTable({
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
        {
          table: 'indexer_clob_activity',
          row: { ...noOrder, ...at, pair, kind: 'transfer', option_id: id, amount: log.amount.toString(), account: log.sender, counterparty: log.receiver },
        },
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
      {
        table: 'indexer_clob_activity',
        // Series, side and price are the order's: read from the book when the row is written. `amount` is what was left.
        row: {
          ...noOrder,
          ...at,
          pair: log.meta.address,
          kind: 'cancelled',
          order_id: log.orderId.toString(),
          amount: log.remaining.toString(),
          remaining: '0',
          account: log.owner,
        },
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

  /** BondVault: a maker added bond; `balance` is its new bond in the token. */
  BondDeposited: indexedEvent({
    abi: bondDepositedEvent,
    emitter: 'bondVault',
    tables: ['indexer_bond_events'],
    decode: (log) => decodeBond(log, 'BondDeposited'),
    project: (log, at) => [bondRow(log, at, 'deposit')],
  }),

  /**
   * BondVault: a maker asked to take `amount` out (its whole pending amount; 0 cancels). The
   * bond stays in the vault until the delay passes, but the API no longer counts the pending part.
   */
  BondWithdrawalRequested: indexedEvent({
    abi: bondWithdrawalRequestedEvent,
    emitter: 'bondVault',
    tables: ['indexer_bond_events'],
    decode(log) {
      expectShape(log, 3, 3, 'BondWithdrawalRequested');
      return {
        maker: topicAddress(log.topics[1]),
        token: topicAddress(log.topics[2]),
        amount: uint(word(log.data, 0)),
        balance: uint(word(log.data, 1)),
        withdrawableAt: uint(word(log.data, 2)),
      };
    },
    project: (log, at) => [bondRow(log, at, 'request', log.withdrawableAt)],
  }),

  /** BondVault: a maker took bond out; `balance` is its new bond in the token. */
  BondWithdrawn: indexedEvent({
    abi: bondWithdrawnEvent,
    emitter: 'bondVault',
    tables: ['indexer_bond_events'],
    decode: (log) => decodeBond(log, 'BondWithdrawn'),
    project: (log, at) => [bondRow(log, at, 'withdraw')],
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

  /**
   * PriceOracle: the USD value of one whole token (18 decimals). The health of the active loans
   * of that token is recomputed by the loans' write; the loans' rollback recomputes it again from
   * the prices that survive (it reads which tokens the prices' rollback removed), so a price's
   * rollback needs only its own table here.
   */
  PriceUpdated: indexedEvent({
    abi: priceUpdatedEvent,
    emitter: 'price_oracle',
    tables: ['indexer_prices'],
    decode(log) {
      expectShape(log, 2, 2, 'PriceUpdated');
      return { token: topicAddress(log.topics[1]), priceWad: uint(word(log.data, 0)), decimals: Number(uint(word(log.data, 1))) };
    },
    project: (log, at) => [
      { table: 'indexer_prices', row: { ...at, oracle: log.meta.address, token: log.token, price_wad: log.priceWad.toString(), decimals: log.decimals } },
    ],
  }),

  /** LendingMarket: a loan exists, with every term. */
  LoanOpened: indexedEvent({
    abi: loanOpenedEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 4, 7, 'LoanOpened');
      const t = log.topics;
      const d = log.data;
      return {
        loanId: uint(t[1]),
        borrower: topicAddress(t[2]),
        lender: topicAddress(t[3]),
        collateralToken: wordAddress(word(d, 0)),
        collateralAmount: uint(word(d, 1)),
        debtToken: wordAddress(word(d, 2)),
        principal: uint(word(d, 3)),
        rateBps: Number(uint(word(d, 4))),
        liquidationThresholdBps: Number(uint(word(d, 5))),
        maturity: Number(uint(word(d, 6))),
      };
    },
    project: (log, at) => [
      {
        table: 'indexer_loans',
        row: {
          opened: {
            market: log.meta.address,
            loan_id: log.loanId.toString(),
            borrower: log.borrower,
            lender: log.lender,
            collateral_token: log.collateralToken,
            collateral_amount: log.collateralAmount.toString(),
            debt_token: log.debtToken,
            principal: log.principal.toString(),
            principal_outstanding: log.principal.toString(),
            interest_paid: '0',
            rate_bps: log.rateBps,
            threshold_bps: log.liquidationThresholdBps,
            maturity: log.maturity,
            state: 'active',
            opened_block: at.block_number,
            opened_block_hash: at.block_hash,
            opened_log_index: at.log_index,
            opened_at: at.block_timestamp,
            tx_hash: at.tx_hash,
            last_block: at.block_number,
            last_log_index: at.log_index,
            closed_at: null,
          },
        },
      },
      {
        table: 'indexer_loan_events',
        row: {
          ...at,
          market: log.meta.address,
          loan_id: log.loanId.toString(),
          kind: 'opened',
          actor: log.borrower,
          borrower: log.borrower,
          lender: log.lender,
          collateral_token: log.collateralToken,
          debt_token: log.debtToken,
          collateral_delta: log.collateralAmount.toString(),
          collateral_after: log.collateralAmount.toString(),
          principal_delta: log.principal.toString(),
          principal_after: log.principal.toString(),
          interest_paid: '0',
        },
      },
    ],
  }),

  /** LendingMarket: collateral topped up; `collateral` is the new total. */
  CollateralAdded: indexedEvent({
    abi: collateralAddedEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 3, 2, 'CollateralAdded');
      return { loanId: uint(log.topics[1]), from: topicAddress(log.topics[2]), amount: uint(word(log.data, 0)), collateral: uint(word(log.data, 1)) };
    },
    project: (log, at) => [
      loanChange(log.meta.address, log.loanId, at, {
        collateral_amount: log.collateral.toString(),
        principal_outstanding: null,
        interest_paid: '0',
        state: 'active',
      }),
      loanEvent(log.meta.address, log.loanId, at, {
        kind: 'collateral_added',
        actor: log.from,
        collateral_delta: log.amount.toString(),
        collateral_after: log.collateral.toString(),
        principal_delta: '0',
        principal_after: null,
        interest_paid: '0',
      }),
    ],
  }),

  /**
   * LendingMarket: collateral taken back; `collateral` is what is left. A full repayment returns
   * the rest with this event after its LoanRepaid, which already closed the loan.
   */
  CollateralWithdrawn: indexedEvent({
    abi: collateralWithdrawnEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 3, 2, 'CollateralWithdrawn');
      return { loanId: uint(log.topics[1]), to: topicAddress(log.topics[2]), amount: uint(word(log.data, 0)), collateral: uint(word(log.data, 1)) };
    },
    project: (log, at) => [
      loanChange(log.meta.address, log.loanId, at, {
        collateral_amount: log.collateral.toString(),
        principal_outstanding: null,
        interest_paid: '0',
        // Only a closing repayment empties the collateral (a withdrawal must leave the loan healthy).
        state: log.collateral === 0n ? 'repaid' : 'active',
      }),
      loanEvent(log.meta.address, log.loanId, at, {
        kind: 'collateral_withdrawn',
        actor: log.to,
        collateral_delta: (-log.amount).toString(),
        collateral_after: log.collateral.toString(),
        principal_delta: '0',
        principal_after: null,
        interest_paid: '0',
      }),
    ],
  }),

  /** LendingMarket: a repayment, interest first; nothing remaining closes the loan. */
  LoanRepaid: indexedEvent({
    abi: loanRepaidEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 3, 3, 'LoanRepaid');
      const d = log.data;
      return {
        loanId: uint(log.topics[1]),
        payer: topicAddress(log.topics[2]),
        principalPaid: uint(word(d, 0)),
        interestPaid: uint(word(d, 1)),
        principalRemaining: uint(word(d, 2)),
      };
    },
    project: (log, at) => [
      loanChange(log.meta.address, log.loanId, at, {
        collateral_amount: null,
        principal_outstanding: log.principalRemaining.toString(),
        interest_paid: log.interestPaid.toString(),
        state: log.principalRemaining === 0n ? 'repaid' : 'active',
      }),
      loanEvent(log.meta.address, log.loanId, at, {
        kind: 'repaid',
        actor: log.payer,
        collateral_delta: '0',
        collateral_after: null,
        principal_delta: (-log.principalPaid).toString(),
        principal_after: log.principalRemaining.toString(),
        interest_paid: log.interestPaid.toString(),
      }),
    ],
  }),

  /** LendingMarket: an unhealthy or overdue loan's debt repaid by a liquidator, who took the collateral. */
  LoanLiquidated: indexedEvent({
    abi: loanLiquidatedEvent,
    emitter: 'lending_market',
    tables: ['indexer_loans', 'indexer_loan_events', 'indexer_loan_token_totals'],
    decode(log) {
      expectShape(log, 3, 3, 'LoanLiquidated');
      const d = log.data;
      return {
        loanId: uint(log.topics[1]),
        liquidator: topicAddress(log.topics[2]),
        principalRepaid: uint(word(d, 0)),
        interestRepaid: uint(word(d, 1)),
        collateralSeized: uint(word(d, 2)),
      };
    },
    project: (log, at) => [
      loanChange(log.meta.address, log.loanId, at, {
        collateral_amount: '0',
        principal_outstanding: '0',
        interest_paid: log.interestRepaid.toString(),
        state: 'liquidated',
      }),
      loanEvent(log.meta.address, log.loanId, at, {
        kind: 'liquidated',
        actor: log.liquidator,
        collateral_delta: (-log.collateralSeized).toString(),
        collateral_after: '0',
        principal_delta: (-log.principalRepaid).toString(),
        principal_after: '0',
        interest_paid: log.interestRepaid.toString(),
      }),
    ],
  }),
});

type EventTable = typeof INDEXED_EVENTS;

/** Deposits and withdrawals share one layout: maker and token indexed, then amount and the new balance. */
function decodeBond(log: RpcLog, kind: string) {
  expectShape(log, 3, 2, kind);
  return { maker: topicAddress(log.topics[1]), token: topicAddress(log.topics[2]), amount: uint(word(log.data, 0)), balance: uint(word(log.data, 1)) };
}

function bondRow(
  log: ReturnType<typeof decodeBond> & { meta: LogMeta },
  at: RowPosition,
  kind: 'deposit' | 'request' | 'withdraw',
  withdrawableAt: bigint | null = null,
): ProjectedRow {
  return {
    table: 'indexer_bond_events',
    row: {
      ...at,
      vault: log.meta.address,
      maker: log.maker,
      token: log.token,
      kind,
      amount: log.amount.toString(),
      balance: log.balance.toString(),
      withdrawable_at: withdrawableAt === null ? null : withdrawableAt.toString(),
    },
  };
}

/** The name of an event the indexer reads. */
export type EventKind = keyof EventTable;

/** Whether `name` is an event the indexer reads. */
export const isEventKind = (name: string): name is EventKind => Object.prototype.hasOwnProperty.call(INDEXED_EVENTS, name);
