import { z } from 'zod';
import { clobExploreSchemas as q } from '../../shared/explore';
import { PAGE_LIMIT_MAX } from '../../shared/platform/pagination';
import { errorCase } from '../http/error-cases';
import { defineRoute } from '../http/route-spec';
import { wireAddress, wireBytes32, wireChainId, wireDecimal, wireTime, wireUnixSeconds } from '../http/wire-formats';

/**
 * Explore for CLOBs (docs/EXPLORE.md): analytics of one pair (CLOB) or of a chain's CLOBs, read
 * from what the indexer stored, behind the Explore gate with widget action `explore-clob`. Every
 * route has its own `:explore` rate-limit bucket.
 */

const auth = { action: 'explore', challenge: 'explore-clob' } as const;
const tags = ['explore'];
const CLOB_NOT_FOUND = errorCase(404, 'clob_not_found', 'clob 0x5FbDB2315678afecb367f032d93F642f64180aa3 is not indexed on chain 31337');

const block = z
  .strictObject({
    number: z.number().int().min(-1).meta({ description: 'Last block indexed; -1 before the first.' }),
    hash: wireBytes32.nullable(),
    time: wireTime.nullable(),
  })
  .meta({ description: 'The indexed block the answer reflects: every event up to it, none after.' });

const seriesFields = {
  option_id: wireDecimal.meta({ description: 'ERC-6909 id of the series (docs/PROTOCOL.md, "Option ids").' }),
  option_type: z.enum(['call', 'put']).nullable(),
  strike_wad: wireDecimal.nullable(),
  expiry_timestamp: wireUnixSeconds.nullable(),
  start_exercise_timestamp: wireUnixSeconds.nullable().meta({ description: '0: American; equal to expiry: European.' }),
};

const level = z.strictObject({
  price: wireDecimal,
  size: wireDecimal.meta({ description: "Sum of the open orders' remaining amounts at this price." }),
  orders: z.number().int().min(1),
  order_list: z
    .array(
      z.strictObject({
        order_id: wireDecimal,
        owner: wireAddress,
        amount: wireDecimal,
        remaining: wireDecimal,
        placed_block: z.number().int(),
        tx_hash: wireBytes32,
      }),
    )
    .optional()
    .meta({ description: 'With `include_orders=true`: the orders at this level, oldest first.' }),
});

const seriesBook = z.strictObject({
  ...seriesFields,
  open_interest: wireDecimal.meta({ description: "Minted minus burned: the series' outstanding supply." }),
  bids: z.array(level).meta({ description: 'Buy orders by price level, highest first.' }),
  asks: z.array(level).meta({ description: 'Sell orders by price level, lowest first.' }),
});

const fill = z.strictObject({
  block_number: z.number().int(),
  log_index: z.number().int(),
  time: wireTime,
  tx_hash: wireBytes32,
  order_id: wireDecimal,
  option_id: wireDecimal.nullable(),
  option_type: z.enum(['call', 'put']).nullable(),
  strike_wad: wireDecimal.nullable(),
  expiry_timestamp: wireUnixSeconds.nullable(),
  start_exercise_timestamp: wireUnixSeconds.nullable(),
  maker: wireAddress.meta({ description: 'Owner of the resting order.' }),
  taker: wireAddress.meta({ description: 'The wallet that filled it.' }),
  maker_side: z
    .enum(['buy', 'sell'])
    .nullable()
    .meta({ description: 'Side of the resting order; the taker took the other. Null for an order placed before indexing began.' }),
  price: wireDecimal,
  amount: wireDecimal,
  premium: wireDecimal.nullable().meta({ description: "amount x price, in the pair's price units." }),
  order_remaining: wireDecimal.meta({ description: 'What the order still offers after this fill.' }),
});

const activity = z.strictObject({
  type: z.enum(['placed', 'filled', 'cancelled', 'transfer']),
  block_number: z.number().int(),
  log_index: z.number().int(),
  time: wireTime,
  tx_hash: wireBytes32,
  option_id: wireDecimal.nullable(),
  series: z
    .strictObject({
      option_type: seriesFields.option_type,
      strike_wad: seriesFields.strike_wad,
      expiry_timestamp: seriesFields.expiry_timestamp,
      start_exercise_timestamp: seriesFields.start_exercise_timestamp,
    })
    .nullable(),
  order_id: wireDecimal.nullable(),
  side: z.enum(['buy', 'sell']).nullable().meta({ description: "The order's side (placed, filled, cancelled)." }),
  price: wireDecimal.nullable(),
  amount: wireDecimal.meta({ description: 'Placed: the order size; filled: the fill; cancelled: what was left; transfer: the amount moved.' }),
  remaining: wireDecimal.nullable().meta({ description: 'What the order offers after this event.' }),
  account: wireAddress.meta({ description: "The order's owner, or the transfer's sender (zero address: a mint)." }),
  counterparty: wireAddress.nullable().meta({ description: "The filler of a fill, or the transfer's receiver (zero address: a burn)." }),
});

/** Whether a window's unique_traders came from the per-day sketches (docs/EXPLORE.md, "Unique traders"). */
const uniqueTradersEstimated = z.boolean().meta({
  description:
    'True when unique_traders is estimated from per-day HyperLogLog sketches (windows of more than 2,000 trader-days; standard error about 2.3 %), false when it is exact.',
});

const page = <T extends z.ZodType>(item: T) =>
  z.strictObject({
    items: z.array(item),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: `Pass as \`cursor\` for the next (older) page; null on the last page. Pages hold at most ${PAGE_LIMIT_MAX} items.` }),
  });

const windowTotals = {
  days: z.number().int(),
  from_day: z.iso.date(),
  to_day: z.iso.date(),
  fills: z.number().int(),
  volume: wireDecimal.meta({ description: 'Option amount filled.' }),
  premium_volume: wireDecimal.meta({ description: 'Sum of amount x price of the fills.' }),
};

const clobIdentity = { chain_id: wireChainId, clob: wireAddress };

export const exploreClobSpecs = {
  getExploreClob: defineRoute({
    method: 'get',
    path: '/api/explore/clobs/:address',
    summary: 'One CLOB at a glance: tokens, series with open interest, 1-day and 7-day fills and volume, the last fill',
    description: 'Windows are UTC days: `days: 1` is today so far, `days: 7` today and the six days before.',
    tags,
    auth,
    cache: 'no-store',
    request: { params: q.clobParams, query: q.overviewQuery },
    responses: {
      200: {
        description: 'The CLOB as indexed up to `block`.',
        schema: z.strictObject({
          ...clobIdentity,
          token0: wireAddress,
          token1: wireAddress,
          premium_token: wireAddress,
          created_block: z.number().int(),
          created_tx_hash: wireBytes32,
          block,
          open_interest: wireDecimal,
          series: z.array(
            z.strictObject({
              ...seriesFields,
              expired: z.boolean(),
              open_interest: wireDecimal,
              orders_placed: z.number().int().meta({ description: 'Orders ever placed on the series.' }),
              transfers: z.number().int().meta({ description: 'ERC-6909 transfers of the series, mints and burns included.' }),
              first_block: z.number().int(),
              fills_7d: z.number().int(),
              volume_7d: wireDecimal,
            }),
          ),
          windows: z.array(
            z.strictObject({
              ...windowTotals,
              unique_traders: z.number().int().optional(),
              unique_traders_estimated: uniqueTradersEstimated.optional(),
            }),
          ),
          last_fill: fill.nullable(),
        }),
      },
    },
    errors: [CLOB_NOT_FOUND],
  }),

  postExploreClobStream: defineRoute({
    method: 'post',
    path: '/api/explore/clobs/:address/stream',
    summary: 'Mint a stream token for the live feed of one CLOB',
    description:
      'Join `topic` on the socket with no other credential. The first event is `explore_clob_snapshot` (book and latest activity with their block), then `explore_clob_event` and `explore_clob_transfer` in block order; after a reorg, `explore_clob_event` with `event: "reorg"` and a fresh snapshot. ' +
      '`chain_id` (optional: the chain the CLOB is indexed on) goes in the query or in the JSON body, as on the loan stream mint; both given must be equal.',
    tags,
    auth,
    cache: 'no-store',
    request: {
      params: q.clobParams,
      query: q.streamQuery,
      body: q.streamBody,
      examples: { body: { summary: 'chain_id in the body (or no body and ?chain_id=31337)', value: { chain_id: 31337 } } },
    },
    responses: {
      201: {
        description: 'A stream token, shown once.',
        schema: z.strictObject({
          stream_token: z.string().meta({ description: '256 random bits, base64url; the server keeps only its sha-256.' }),
          topic: z.string().meta({ description: '`explore_clob_stream:<stream_token>`.' }),
          expires_in: z.number().int().meta({ description: 'Seconds until the token, and the feed, end.' }),
        }),
      },
    },
    errors: [CLOB_NOT_FOUND, errorCase(503, 'explore_stream_unavailable', 'explore streams are unavailable, retry shortly')],
  }),

  getClobBooks: defineRoute({
    method: 'get',
    path: '/api/clob/book',
    summary: 'The books of every CLOB of a chain, filtered by token, premium token, option type or expiry',
    tags,
    auth,
    cache: 'no-store',
    request: { query: q.chainBookQuery },
    responses: {
      200: {
        description: "Each CLOB with its series' best `depth` levels a side.",
        schema: z.strictObject({
          chain_id: wireChainId,
          block,
          depth: z.number().int(),
          clobs: z.array(
            z.strictObject({ clob: wireAddress, token0: wireAddress, token1: wireAddress, premium_token: wireAddress, series: z.array(seriesBook) }),
          ),
        }),
      },
    },
    errors: [],
  }),

  getClobBook: defineRoute({
    method: 'get',
    path: '/api/clob/:address/book',
    summary: "A CLOB's book: bids and asks per series, aggregated by price level, optionally with the orders",
    tags,
    auth,
    cache: 'no-store',
    request: { params: q.clobParams, query: q.bookQuery },
    responses: {
      200: {
        description: 'Every listed series (or the one asked for), with its best `depth` levels a side.',
        schema: z.strictObject({ ...clobIdentity, block, depth: z.number().int(), series: z.array(seriesBook) }),
      },
    },
    errors: [CLOB_NOT_FOUND],
  }),

  getClobActivity: defineRoute({
    method: 'get',
    path: '/api/clob/:address/activity',
    summary: 'Orders placed, filled and cancelled, and transfers, newest first',
    description: 'Filters combine (AND); `address` matches the owner, maker, taker, sender or receiver. Paginate with `cursor` from `next_cursor`.',
    tags,
    auth,
    cache: 'no-store',
    request: { params: q.clobParams, query: q.activityQuery },
    responses: { 200: { description: 'One page, newest first.', schema: page(activity) } },
    errors: [CLOB_NOT_FOUND],
  }),

  getClobFills: defineRoute({
    method: 'get',
    path: '/api/clob/:address/fills',
    summary: 'Fills of a CLOB, newest first, with maker, taker, side, price and premium',
    tags,
    auth,
    cache: 'no-store',
    request: { params: q.clobParams, query: q.fillsQuery },
    responses: { 200: { description: 'One page, newest first.', schema: page(fill) } },
    errors: [CLOB_NOT_FOUND],
  }),

  getClobSummary: defineRoute({
    method: 'get',
    path: '/api/clob/:address/summary',
    summary: 'Fills, volumes and unique traders per UTC day over a window, with totals and open interest',
    description:
      'Window: `from` and `to` UTC dates, inclusive; the last 30 days by default, at most 366. Unique traders count makers and takers of the whole CLOB, also when `option_id` narrows the volumes.',
    tags,
    auth,
    cache: 'no-store',
    request: { params: q.clobParams, query: q.summaryQuery },
    responses: {
      200: {
        description: 'Days with fills only, oldest first.',
        schema: z.strictObject({
          ...clobIdentity,
          block,
          option_id: wireDecimal.nullable(),
          from_day: z.iso.date(),
          to_day: z.iso.date(),
          totals: z.strictObject({
            fills: z.number().int(),
            volume: wireDecimal,
            premium_volume: wireDecimal,
            unique_traders: z.number().int(),
            unique_traders_estimated: uniqueTradersEstimated,
          }),
          open_interest: wireDecimal,
          days: z.array(
            z.strictObject({ day: z.iso.date(), fills: z.number().int(), volume: wireDecimal, premium_volume: wireDecimal, unique_traders: z.number().int() }),
          ),
        }),
      },
    },
    errors: [CLOB_NOT_FOUND],
  }),
};
