import { z } from 'zod';
import { chainPositionKey, cursorSchema, limitQuery } from '../../platform/pagination';
import { addressSchema, CHAIN_ID, chainIdBody, decimalUint, intQuerySchema, intRange } from '../../platform/validation';

/**
 * Query schemas of the CLOB Explore routes (docs/EXPLORE.md). Every field is optional and
 * single-valued; a bad value is a 400 naming it.
 */

/** Activity and fills page by their position on chain: (block number, log index) of the last item served. */
export const activityKey = chainPositionKey;

const ACTIVITY_KINDS = ['placed', 'filled', 'cancelled', 'transfer'] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

const isoTime = (what: string) =>
  z
    .string({ message: `must be an ISO 8601 UTC timestamp (${what}), given once` })
    .refine(
      (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(v) && !Number.isNaN(Date.parse(v)),
      `must be an ISO 8601 UTC timestamp (${what})`,
    )
    .transform((v) => Math.floor(Date.parse(v) / 1000));

/**
 * A UTC day from 1970 (no block is older, and the default window's start, 29 days before `to`,
 * stays a date Postgres holds: year 0 is not one) to 9999.
 */
const isoDay = z
  .string({ message: 'must be a UTC date YYYY-MM-DD, given once' })
  .refine(
    (v) =>
      /^\d{4}-\d\d-\d\d$/.test(v) && v >= '1970-01-01' && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v),
    'must be a UTC date YYYY-MM-DD from 1970-01-01 to 9999-12-31',
  );

/** An option id (uint256) as a decimal string: a series of the CLOB. */
const seriesParam = decimalUint({ what: 'an option id' }).transform((v) => v.toString());

const chainId = intQuerySchema(CHAIN_ID).optional();

export const clobParams = z.object({ address: addressSchema });

/** `GET /api/explore/clobs/:address`. */
export const overviewQuery = z.object({ chain_id: chainId });

const depth = intQuerySchema(intRange(1, 100, 'a number of price levels'))
  .optional()
  .transform((v) => v ?? 20);
const includeOrders = z
  .enum(['true', 'false'], { message: 'must be true or false' })
  .optional()
  .transform((v) => v === 'true');

/** `GET /api/clob/:address/book`. */
export const bookQuery = z.object({ chain_id: chainId, option_id: seriesParam.optional(), depth, include_orders: includeOrders });

/** `GET /api/clob/book`: every CLOB of one chain. */
export const chainBookQuery = z.object({
  chain_id: intQuerySchema(CHAIN_ID),
  token: addressSchema.optional().meta({ description: 'Only CLOBs trading this token (as token0 or token1).' }),
  premium_token: addressSchema.optional(),
  option_type: z.enum(['call', 'put'], { message: 'must be call or put' }).optional(),
  expiry_timestamp: intQuerySchema(intRange(0, 2 ** 40 - 1, 'unix seconds')).optional(),
  depth: intQuerySchema(intRange(1, 50, 'a number of price levels'))
    .optional()
    .transform((v) => v ?? 10),
});

const listFilters = {
  chain_id: chainId,
  option_id: seriesParam.optional(),
  address: addressSchema.optional().meta({ description: 'Only rows this wallet is part of (owner, maker, taker, sender or receiver).' }),
  since: isoTime('inclusive lower bound').optional(),
  until: isoTime('exclusive upper bound').optional(),
  cursor: cursorSchema(activityKey).optional(),
  limit: limitQuery,
};

/** `type=placed,filled`: a comma-separated subset of the activity kinds. */
const kinds = z.string({ message: `must be a comma-separated list of ${ACTIVITY_KINDS.join(', ')}, given once` }).transform((v, ctx) => {
  const parts = [...new Set(v.split(','))];
  if (parts.some((p) => !(ACTIVITY_KINDS as readonly string[]).includes(p))) {
    ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of ${ACTIVITY_KINDS.join(', ')}` });
    return z.NEVER;
  }
  return parts as ActivityKind[];
});

/** `GET /api/clob/:address/activity`. */
export const activityQuery = z.object({ ...listFilters, type: kinds.optional() });

/** `GET /api/clob/:address/fills`. */
export const fillsQuery = z.object(listFilters);

/** `GET /api/clob/:address/summary`: a window of UTC days, the last 30 by default, at most 366. */
export const summaryQuery = z.object({ chain_id: chainId, option_id: seriesParam.optional(), from: isoDay.optional(), to: isoDay.optional() });

/** `POST /api/explore/clobs/:address/stream`: `chain_id` in the query or the body, as on the loan stream mint. */
export const streamQuery = z.object({ chain_id: chainId });
export const streamBody = chainIdBody;
