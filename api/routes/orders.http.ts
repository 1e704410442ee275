import { z } from 'zod';
import { chainIdQuery } from '../../shared/platform/validation';
import { defineRoute } from '../http/route-spec';
import { errorCase, FILL_BOND_ERRORS, VALIDATION_FAILED } from '../http/error-cases';
import { exclusiveFillWire, ORDER_STATES, orderWire } from '../../wire/src/order.wire';
import { addressIn, exclusiveFillCreateBody, orderCreateBody } from '../../wire/src/order-bodies';

/*
 * CLOB orders and exclusive fills (docs/ORDERS.md). The order body is parsed by shared/orders
 * (order-request.ts), which names every bad field; the schema here documents it.
 */

const ORDER_ID = '0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b';
const ORDER_NOT_FOUND = errorCase(404, 'order_not_found', `order ${ORDER_ID} not found`);
const PAIR = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const OWNER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const EXPIRY = 1924992000;

export const ORDER_EXAMPLE = {
  chain_id: 31337,
  amount: '1000000000000000000',
  destination: { from: OWNER, to: PAIR, nonce: { prefix: 0, nonce: '1' } },
  data: {
    options6909Contract: PAIR,
    rewardLimits: { fillerRewardMaxPerMintedUnit: '1000', fillerRewardMinPerMintedUnit: '0' },
    pairKey: { optionType: 0, startExecutionTimeStamp: 0, expiryTimestamp: EXPIRY },
    decayPremium: { premiumStart: '125000000', premiumEnd: '100000000', decayRateBpsPerSecond: 1 },
    decayStrike: { strikeStart: '3000000000000000000000', strikeEnd: '3000000000000000000000', decayRateBpsPerSecond: 0 },
    decayMinFill: { startMinFill: '0', decayRatePerSecond: '0' },
    buyOrSell: 0,
    intentStartTime: EXPIRY - 86400 * 30,
    intentExpiry: EXPIRY - 86400,
    orderOnExpiry: 0,
  },
};

const idParams = z.object({ id: z.string().meta({ description: 'The order id (a uuid); anything else is not found.' }) });

export const ordersSpecs = {
  createOrder: defineRoute({
    method: 'post',
    path: '/api/orders',
    summary: 'Record a CLOB order',
    description:
      'Optional bearer: with one, destination.from must be its wallet. The order is inert until its owner places it on chain ' +
      "(the pair's placeIntent, which only destination.from can call); the answer carries the intent hash the chain will show. " +
      'Recording reserves nothing: records are unique by intent hash, several may share a nonce, and the placement on chain decides ' +
      "which is real. Only a record made with the owner's own credential (SIWE session or maker key) is listed before placement.",
    tags: ['orders'],
    auth: { action: 'create_order' },
    cache: 'no-store',
    request: { body: orderCreateBody, bodyCheck: 'service', examples: { call: { summary: 'Buy a call at a decaying premium', value: ORDER_EXAMPLE } } },
    responses: {
      201: {
        description:
          'The recorded order (state open). When the very same intent (same intent hash) was recorded before: that record, now marked recorded_by_owner when the owner sent it, with header Idempotent-Replayed: true.',
        schema: orderWire,
      },
    },
    errors: [
      VALIDATION_FAILED,
      errorCase(403, 'order_owner_mismatch', `destination.from ${OWNER} is not the authenticated wallet 0x90F79bf6EB2c4f870365E785982E1f101E93b906`),
    ],
  }),
  getOrder: defineRoute({
    method: 'get',
    path: '/api/orders/:id',
    summary: 'One order, with its book order once placed on chain',
    tags: ['orders'],
    auth: { action: 'read_public' },
    cache: 'no-store',
    request: { params: idParams },
    responses: { 200: { description: 'The order.', schema: orderWire } },
    errors: [ORDER_NOT_FOUND],
  }),
  listOrders: defineRoute({
    method: 'get',
    path: '/api/orders',
    summary: 'Confirmed orders (placed on chain, or recorded by the owner itself), newest first, with cursor pagination',
    tags: ['orders'],
    auth: { action: 'read_public' },
    cache: 'no-store',
    request: {
      query: z.object({
        owner: addressIn.optional().meta({ description: "Only this owner's orders: those it placed on chain or recorded with its own credential." }),
        state: z.enum(ORDER_STATES).optional(),
        chain_id: chainIdQuery.shape.chain_id.meta({ description: 'Only this chain (a chain id up to 2^31-1, as every chain id column).' }),
        cursor: z.string().max(200).optional().meta({ description: "The previous page's next_cursor." }),
        limit: z
          .string()
          .regex(/^[1-9][0-9]{0,2}$/)
          .transform(Number)
          .pipe(z.number().max(500))
          .optional()
          .meta({ description: '1 to 500, default 50.' }),
      }),
    },
    responses: { 200: { description: 'One page.', schema: z.strictObject({ items: z.array(orderWire), next_cursor: z.string().nullable() }) } },
    errors: [VALIDATION_FAILED],
  }),
  cancelOrder: defineRoute({
    method: 'post',
    path: '/api/orders/:id/cancel',
    summary: 'The owner cancels an order (records the intent to cancel)',
    description:
      "The owner's own credential only: its SIWE session, or a maker API key of that bot wallet; a taker delegate is refused (403), " +
      'since a taker organization can mint one for any wallet. ' +
      'The order leaves the API: no exclusive fill can cover it any more. Held by a live exclusive fill, the cancel is recorded at once ' +
      '(200, cancel_pending: true): no new fill is granted over the order, and it is cancelled when the fill ends unless the fill is used. A book order already placed on chain stays in the book ' +
      "until the owner calls the pair's cancelOrder: the API never moves anyone's order on chain.",
    tags: ['orders'],
    auth: { action: 'cancel_order' },
    cache: 'no-store',
    request: { params: idParams },
    responses: { 200: { description: 'The cancelled order.', schema: orderWire } },
    errors: [
      ORDER_NOT_FOUND,
      errorCase(403, 'maker_key_unverified', 'maker key 4c1f0c9e-8a55-4b0e-9d3a-2f0b5c1e7a10 is unverified: its bot wallet has not proved it consents'),
      errorCase(403, 'not_order_owner', `order ${ORDER_ID} belongs to ${OWNER}, not to the authenticated wallet 0x90F79bf6EB2c4f870365E785982E1f101E93b906`),
      errorCase(409, 'order_under_exclusive_fill', `order ${ORDER_ID} is under an active exclusive fill; cancel it after the fill expires`),
      errorCase(409, 'order_filled', `order ${ORDER_ID} is filled; only an open order can be cancelled`),
      errorCase(409, 'order_cancelled', `order ${ORDER_ID} is cancelled; only an open order can be cancelled`),
      errorCase(409, 'order_expired', `order ${ORDER_ID} is expired; only an open order can be cancelled`),
    ],
  }),
  createExclusiveFill: defineRoute({
    method: 'post',
    path: '/api/exclusive-fill',
    summary: 'Take short-lived exclusive fill rights over open orders (makers)',
    description:
      "Every order placed on chain by its owner (indexed OrderIntentPlaced), open, on one chain and CLOB, and not under another active exclusive fill; the maker's indexed BondVault bond in each " +
      'premium token at least its fill_bond_amount (GET /api/bond-requirements). Racing makers: one winner per order, the others 409.',
    tags: ['orders'],
    auth: { action: 'exclusive_fill' },
    cache: 'no-store',
    request: {
      body: exclusiveFillCreateBody,
      bodyCheck: 'service',
    },
    responses: { 201: { description: "The active exclusive fill and the service's signature.", schema: exclusiveFillWire } },
    errors: [
      VALIDATION_FAILED,
      ORDER_NOT_FOUND,
      ...FILL_BOND_ERRORS,
      errorCase(403, 'maker_key_unverified', 'maker key 4c1f0c9e-8a55-4b0e-9d3a-2f0b5c1e7a10 is unverified: its bot wallet has not proved it consents'),
      errorCase(409, 'order_not_open', `order ${ORDER_ID} is filled; only open orders can be filled`),
      errorCase(
        409,
        'order_not_placed',
        `order ${ORDER_ID} is not placed on chain: its owner has not called placeIntent (or it is not indexed yet); only placed orders can be filled`,
      ),
      errorCase(
        403,
        'fade_limit_reserved',
        'this organization has 1 fades within 86400 seconds and 2 open exclusive rights (awards not yet decided, bids on competing auctions, live exclusive fills); one more could bring it above the fade limit 3: wait until a right is decided',
      ),
      errorCase(
        403,
        'maker_faded',
        "3 Dutch awards of this maker's organization let their exclusive window pass without a fill within 86400 seconds; bids are refused until 2026-11-23T21:00:00.000Z",
      ),
      errorCase(
        403,
        'exclusive_fill_retake_cooldown',
        `an exclusive fill of this maker's organization over these orders expired unused at 2026-11-23T20:00:00.000Z; it may take them again from 2026-11-23T21:00:00.000Z`,
      ),
      errorCase(409, 'order_cancel_pending', `order ${ORDER_ID} is being cancelled by its owner; no new exclusive fill is granted over it`),
      errorCase(409, 'order_under_exclusive_fill', `order ${ORDER_ID} is under another active exclusive fill`),
      errorCase(503, 'network_unavailable', 'chain 31337 has no mothership configured'),
    ],
  }),
};
