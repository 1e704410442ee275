import { z } from 'zod';
import { chainPositionKey, pageQuery } from '../platform/pagination';
import { CHAIN_ID, chainIdBody, evmAddress, intQuerySchema, readDecimalUint } from '../platform/validation';
import { parseLoanId } from './loan.views';

/**
 * Query and body schemas of the loan routes (the route specs use them, the service takes
 * their output). Lists page as every list does (shared/platform/pagination): an opaque `cursor`
 * and `limit` (default 50, at most 500).
 */

export const LOAN_EVENT_KINDS = ['opened', 'collateral_added', 'collateral_withdrawn', 'repaid', 'liquidated'] as const;
export const LOAN_STATES = ['active', 'repaid', 'liquidated'] as const;

const chainId = intQuerySchema(CHAIN_ID);
/**
 * Sort keys behind the lists' cursors, each member bounded to its column: a loan's health (a
 * decimal) then its id (a uint256 on chain), or an event's block (bigint) then log index (integer).
 */
const decimal = z.string().regex(/^(0|[1-9][0-9]{0,77})$/);
const loanIdMember = z.string().refine((v) => 'value' in readDecimalUint(v));
const healthKey = z.tuple([decimal, loanIdMember]);
const positionKey = chainPositionKey;
const time = z.iso.datetime({ message: 'must be an ISO 8601 UTC timestamp' }).transform((s) => Math.floor(Date.parse(s) / 1000));
const healthLine = z
  .string({ message: 'must be a decimal such as 1.1, given once' })
  .regex(/^(0|[1-9][0-9]{0,5})(\.[0-9]{1,18})?$/, 'must be a decimal such as 1.1 (at most 18 decimals)');

const page = pageQuery(positionKey);
const network = { chain_id: chainId.meta({ description: 'The network (required: loan ids and lists are per network).' }) };

export const summaryQuery = z.strictObject({ chain_id: chainId.optional().meta({ description: 'One network; all networks with loans when omitted.' }) });

export const atRiskQuery = z.strictObject({
  ...network,
  below: healthLine.optional().meta({ description: 'Health factor line, exclusive (default 1.1, the at-risk line; 1 lists the liquidatable).' }),
  ...pageQuery(healthKey),
});

export const recentQuery = z.strictObject({ ...network, ...page });

export const activityQuery = z.strictObject({
  ...network,
  borrower: evmAddress.optional(),
  lender: evmAddress.optional(),
  token: evmAddress.optional().meta({ description: 'Collateral or debt token.' }),
  type: z.enum(LOAN_EVENT_KINDS, { message: `must be one of ${LOAN_EVENT_KINDS.join(', ')}` }).optional(),
  from: time.optional().meta({ description: 'Events in blocks at or after this time (ISO 8601).' }),
  to: time.optional().meta({ description: 'Events in blocks at or before this time (ISO 8601).' }),
  ...page,
});

export const eventsQuery = z.strictObject({
  ...network,
  type: z.enum(['loan', 'price'], { message: 'must be loan or price' }).optional().meta({ description: 'Only loan events, or only oracle price updates.' }),
  token: evmAddress.optional().meta({ description: 'Price updates of this token, loan events with it as collateral or debt.' }),
  ...page,
});

export const loansQuery = z.strictObject({
  ...network,
  borrower: evmAddress.optional(),
  lender: evmAddress.optional(),
  token: evmAddress.optional().meta({ description: 'Collateral or debt token.' }),
  state: z.enum(LOAN_STATES, { message: `must be one of ${LOAN_STATES.join(', ')}` }).optional(),
  ...page,
});

export const collateralQuery = z.strictObject({ ...page });

const LOAN_ID = /^[1-9][0-9]{0,9}-[0-9]{1,78}$/;
const LOAN_ID_MESSAGE = 'must be a loan id such as 31337-7 (chain id, dash, loan id)';

export const loanIdParams = z.object({
  id: z
    .string()
    .regex(LOAN_ID, LOAN_ID_MESSAGE)
    // Past the pattern (whose own issue already names `id`): a chain id and a loan id their columns hold.
    .refine((v) => !LOAN_ID.test(v) || parseLoanId(v) !== null, `${LOAN_ID_MESSAGE}: a chain id up to ${CHAIN_ID.max} and a uint256 loan id`)
    .meta({ description: "Loan id: `<chain_id>-<loan id on that network's market>`.", examples: ['31337-7'] }),
});

/**
 * `POST /api/explore/loans/stream`: the network whose lending market the stream follows, as
 * `chain_id` in the query or the body (or both, equal), the same way as the CLOB stream mint;
 * required here.
 */
export const streamQuery = z.strictObject({ chain_id: chainId.optional().meta({ description: 'The network (or give it in the body).' }) });
export const streamBody = chainIdBody;

export type SummaryQuery = z.output<typeof summaryQuery>;
export type AtRiskQuery = z.output<typeof atRiskQuery>;
export type RecentQuery = z.output<typeof recentQuery>;
export type ActivityQuery = z.output<typeof activityQuery>;
export type EventsQuery = z.output<typeof eventsQuery>;
export type LoansQuery = z.output<typeof loansQuery>;
export type CollateralQuery = z.output<typeof collateralQuery>;
export type StreamQuery = z.output<typeof streamQuery>;
export type StreamBody = z.output<typeof streamBody>;
