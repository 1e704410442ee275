import { z } from 'zod';
import { addressSchema, chainIdQuery } from '../../shared/platform/validation';
import { defineRoute } from '../http/route-spec';
import { wireAddress, wireChainId, wireDecimal, wireUnixSeconds } from '../http/wire-formats';

/** An option series decoded from its id; null fields when the id is not one of ours. */
const series = {
  option_type: z.enum(['call', 'put']).nullable(),
  strike_wad: wireDecimal.nullable(),
  expiry_timestamp: wireUnixSeconds.nullable(),
  start_exercise_timestamp: wireUnixSeconds.nullable(),
};

const holding = z.strictObject({
  clob: wireAddress,
  option_id: wireDecimal,
  ...series,
  balance: wireDecimal,
  token0: wireAddress.nullable(),
  token1: wireAddress.nullable(),
  premium_token: wireAddress.nullable(),
  updated_block: z.number().int(),
  expired: z.boolean().meta({ description: 'Past its expiry but still held: the wallet may still exercise or settle it.' }),
});

const openOrder = z.strictObject({
  clob: wireAddress,
  order_id: z.string(),
  option_id: wireDecimal,
  ...series,
  side: z.enum(['buy', 'sell']),
  price: wireDecimal,
  amount: wireDecimal,
  remaining: wireDecimal,
  placed_block: z.number().int(),
  tx_hash: z.string(),
});

/** Public portfolio snapshot of a wallet, from indexed chain data. */
export const portfolioSpecs = {
  getPortfolio: defineRoute({
    method: 'get',
    path: '/api/portfolio/:address',
    summary: "A wallet's CLOB holdings, open orders and closed holdings per network",
    tags: ['public data'],
    auth: { action: 'read_public' },
    cache: 'no-store',
    request: { params: z.object({ address: addressSchema }), query: chainIdQuery },
    responses: {
      200: {
        description: 'Holdings are every balance > 0; closed are ids once held, now zero.',
        schema: z.strictObject({
          address: wireAddress,
          networks: z.array(
            z.strictObject({
              chain_id: wireChainId,
              holdings: z.array(holding),
              open_orders: z.array(openOrder),
              closed: z.array(holding.extend({ state: z.literal('closed') })),
            }),
          ),
        }),
      },
    },
    errors: [],
  }),
};
