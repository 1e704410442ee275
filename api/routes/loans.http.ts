import { z } from 'zod';
import {
  activityQuery,
  atRiskQuery,
  collateralQuery,
  eventsQuery,
  loanIdParams,
  LOAN_EVENT_KINDS,
  LOAN_STATES,
  loansQuery,
  recentQuery,
  streamBody,
  streamQuery,
  summaryQuery,
} from '../../shared/loans';
import { defineRoute } from '../http/route-spec';
import { errorCase, VALIDATION_FAILED } from '../http/error-cases';
import { wireAddress, wireBlock, wireBytes32, wireChainId, wireDecimal, wireTime } from '../http/wire-formats';

/**
 * Explore for loans (docs/LOANS.md): nine reads of the indexed reference lending market, behind
 * the Explore gate with the `explore-loan` challenge action. Amounts are raw token units;
 * `*_usd` values and health factors are decimals (18 places at most) from the oracle's latest
 * prices, null when a token has no price yet.
 */

const usdDecimal = z
  .string()
  .regex(/^(0|[1-9][0-9]*)(\.[0-9]{1,18})?$/)
  .meta({ description: "USD value from the oracle's latest price, as a decimal string." });
const healthDecimal = z
  .string()
  .regex(/^(0|[1-9][0-9]*)(\.[0-9]{1,18})?$/)
  .meta({ description: 'Health factor: collateral value x liquidation threshold / outstanding principal value. Below 1 the loan may be liquidated.' });
const signedDecimal = z
  .string()
  .regex(/^(0|-?[1-9][0-9]*)$/)
  .meta({ description: 'Signed integer as a decimal string: what the event added (+) or took (-).' });
const loanId = z
  .string()
  .regex(/^[1-9][0-9]*-[0-9]+$/)
  .meta({ description: 'Public loan id `<chain_id>-<loan id>`.', examples: ['31337-7'] });

const tokenRef = z.strictObject({
  address: wireAddress,
  symbol: z.string().nullable().meta({ description: "From the network's tokens (GET /api/networks); null for an unregistered token." }),
  decimals: z.number().int().nullable(),
  price_usd: usdDecimal.nullable(),
});

const loan = z.strictObject({
  id: loanId,
  chain_id: wireChainId,
  market: wireAddress,
  loan_id: wireDecimal,
  state: z.enum(LOAN_STATES),
  borrower: wireAddress,
  lender: wireAddress,
  collateral: z.strictObject({ token: tokenRef, amount: wireDecimal, value_usd: usdDecimal.nullable() }),
  debt: z.strictObject({
    token: tokenRef,
    principal: wireDecimal.meta({ description: 'As lent.' }),
    outstanding: wireDecimal.meta({ description: 'Principal still owed (interest accrues on it on chain and is paid first).' }),
    interest_paid: wireDecimal,
    outstanding_value_usd: usdDecimal.nullable(),
  }),
  rate_bps: z.number().int().meta({ description: 'Simple yearly interest rate, basis points.' }),
  liquidation_threshold_bps: z.number().int(),
  health_factor: healthDecimal.nullable().meta({ description: 'Null for a closed loan or a token without a price.' }),
  at_risk: z.boolean().meta({ description: 'Health below the at-risk line, 1.1.' }),
  liquidatable: z.boolean().meta({ description: 'Active, and health below 1 or past maturity.' }),
  overdue: z.boolean(),
  maturity: wireTime,
  opened_at: wireTime,
  opened_block: wireBlock,
  opened_tx_hash: wireBytes32,
  closed_at: wireTime.nullable(),
  updated_block: wireBlock,
});

const loanEvent = z.strictObject({
  chain_id: wireChainId,
  loan: loanId,
  loan_id: wireDecimal,
  market: wireAddress,
  kind: z.enum(LOAN_EVENT_KINDS),
  actor: wireAddress.meta({ description: 'Who sent it: the borrower (opened), the payer, the depositor, the receiver, the liquidator.' }),
  borrower: wireAddress.nullable(),
  lender: wireAddress.nullable(),
  collateral_token: wireAddress.nullable(),
  debt_token: wireAddress.nullable(),
  collateral_delta: signedDecimal,
  collateral_after: wireDecimal.nullable().meta({ description: 'Collateral held after the event; null when the event does not move it.' }),
  principal_delta: signedDecimal,
  principal_after: wireDecimal.nullable().meta({ description: 'Principal owed after the event; null when the event does not move it.' }),
  interest_paid: wireDecimal,
  block_number: wireBlock,
  block_hash: wireBytes32,
  log_index: z.number().int(),
  tx_hash: wireBytes32,
  at: wireTime,
});

const priceUpdate = z.strictObject({
  chain_id: wireChainId,
  oracle: wireAddress,
  token: wireAddress,
  price_wad: wireDecimal,
  price_usd: usdDecimal,
  decimals: z.number().int(),
  block_number: wireBlock,
  block_hash: wireBytes32,
  log_index: z.number().int(),
  tx_hash: wireBytes32,
  at: wireTime,
});

const page = <T extends z.ZodType>(item: T) =>
  z.strictObject({ items: z.array(item), next_cursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page; null on the last.' }) });

const summary = z.strictObject({
  networks: z.array(
    z.strictObject({
      chain_id: wireChainId,
      totals: z.strictObject({
        active_loans: z.number().int(),
        outstanding_value_usd: usdDecimal,
        collateral_value_usd: usdDecimal,
        priced: z.boolean().meta({ description: 'False when a token of an active loan has no price: its value is left out of the USD totals.' }),
        at_risk_loans: z.number().int(),
        liquidatable_loans: z.number().int().meta({ description: 'Health below 1 (overdue loans are not counted here).' }),
        at_risk_below: healthDecimal,
      }),
      tokens: z.array(
        z.strictObject({
          token: wireAddress,
          symbol: z.string().nullable(),
          decimals: z.number().int().nullable(),
          price_usd: usdDecimal.nullable(),
          as_debt: z.strictObject({
            active_loans: z.number().int(),
            outstanding_principal: wireDecimal,
            outstanding_value_usd: usdDecimal.nullable(),
            average_rate_bps: z.number().nullable(),
          }),
          as_collateral: z.strictObject({ active_loans: z.number().int(), amount: wireDecimal, value_usd: usdDecimal.nullable() }),
        }),
      ),
    }),
  ),
});

const explore = { action: 'explore', challenge: 'explore-loan' } as const;
const tags = ['explore: loans'];
const LOAN_NOT_FOUND = errorCase(404, 'loan_not_found', 'no loan 31337-999');

export const loansSpecs = {
  getLoanSummary: defineRoute({
    method: 'get',
    path: '/api/explore/loans/summary',
    summary: 'Active loans per network and token: count, outstanding principal, collateral value, average rate',
    tags,
    auth: explore,
    cache: 'no-store',
    request: { query: summaryQuery },
    responses: { 200: { description: 'One entry per network with loans (or the one asked for).', schema: summary } },
    errors: [VALIDATION_FAILED],
  }),
  getLoansAtRisk: defineRoute({
    method: 'get',
    path: '/api/explore/loans/at-risk',
    summary: 'Active loans with a health factor below a line, least healthy first',
    tags,
    auth: explore,
    cache: 'no-store',
    request: { query: atRiskQuery },
    responses: { 200: { description: 'Ranked by health factor, ascending.', schema: page(loan) } },
    errors: [VALIDATION_FAILED],
  }),
  getRecentLoans: defineRoute({
    method: 'get',
    path: '/api/explore/loans/recent',
    summary: 'Loans most recently opened',
    tags,
    auth: explore,
    cache: 'no-store',
    request: { query: recentQuery },
    responses: { 200: { description: 'Newest opening first, in their current state.', schema: page(loan) } },
    errors: [VALIDATION_FAILED],
  }),
  getLoanActivity: defineRoute({
    method: 'get',
    path: '/api/explore/loans/activity',
    summary: 'Every loan event, filtered by borrower, lender, token, type and time',
    tags,
    auth: explore,
    cache: 'no-store',
    request: { query: activityQuery },
    responses: { 200: { description: 'Newest first.', schema: page(loanEvent) } },
    errors: [VALIDATION_FAILED],
  }),
  getLoanEvents: defineRoute({
    method: 'get',
    path: '/api/explore/loans/events',
    summary: "The lending market's and the oracle's chain events as indexed: loan events and price updates, merged",
    tags,
    auth: explore,
    cache: 'no-store',
    request: { query: eventsQuery },
    responses: {
      200: {
        description: 'Newest first; each item is a loan event or a price update.',
        schema: page(
          z.discriminatedUnion('type', [
            z.strictObject({ type: z.literal('loan'), loan: loanEvent, price: z.null() }),
            z.strictObject({ type: z.literal('price'), loan: z.null(), price: priceUpdate }),
          ]),
        ),
      },
    },
    errors: [VALIDATION_FAILED],
  }),
  mintLoanStream: defineRoute({
    method: 'post',
    path: '/api/explore/loans/stream',
    summary: 'Mints a loan stream token: join explore_loan_stream:<token> for a snapshot, then live loan events',
    description:
      "The topic first replays `explore_loan_snapshot` (the network's summary and at-risk loans, with the indexed `block` they reflect), then carries `explore_loan_event`s of later blocks: " +
      '`event` = `loan` (an /activity item), `price` (an oracle update), `health` (a loan crossed the at-risk line, `crossed` = `at_risk` | `recovered`), ' +
      'or `reorg` (events above `ancestor_block` were undone; a fresh snapshot with `reason: "reorg"` follows). Every event has `seq`; rejoin with `last_seq` to resume. ' +
      '`chain_id` (required) goes in the query or in the JSON body, as on the CLOB stream mint; both given must be equal.',
    tags,
    auth: explore,
    cache: 'no-store',
    request: {
      query: streamQuery,
      body: streamBody,
      examples: { body: { summary: 'chain_id in the body (or no body and ?chain_id=31337)', value: { chain_id: 31337 } } },
    },
    responses: {
      201: {
        description: 'The token is shown once; it expires at `expires_at`.',
        schema: z.strictObject({
          stream_token: z.string(),
          topic: z.string().meta({ description: '`explore_loan_stream:<stream_token>`' }),
          expires_in: z.number().int().meta({ description: 'Seconds the token stays valid (EXPLORE_STREAM_TTL_SECONDS).' }),
        }),
      },
    },
    errors: [VALIDATION_FAILED, errorCase(503, 'explore_stream_unavailable', 'explore streams are unavailable, retry shortly')],
  }),
  listLoans: defineRoute({
    method: 'get',
    path: '/api/margin/loans',
    summary: 'Loans filtered by borrower, lender, token and state',
    tags,
    auth: explore,
    cache: 'no-store',
    request: { query: loansQuery },
    responses: { 200: { description: 'Newest opening first.', schema: page(loan) } },
    errors: [VALIDATION_FAILED],
  }),
  getLoan: defineRoute({
    method: 'get',
    path: '/api/margin/loans/:id',
    summary: 'One loan in its current state, with its history',
    tags,
    auth: explore,
    cache: 'no-store',
    request: { params: loanIdParams },
    responses: { 200: { description: 'History oldest first (at most 500 events).', schema: loan.extend({ history: z.array(loanEvent) }) } },
    errors: [VALIDATION_FAILED, LOAN_NOT_FOUND],
  }),
  getLoanCollateral: defineRoute({
    method: 'get',
    path: '/api/margin/loans/:id/collateral',
    summary: "A loan's collateral movements: deposit, top-ups, withdrawals, return, seizure",
    tags,
    auth: explore,
    cache: 'no-store',
    request: { params: loanIdParams, query: collateralQuery },
    responses: { 200: { description: 'Newest first; `collateral_delta` is what moved, `collateral_after` what was left.', schema: page(loanEvent) } },
    errors: [VALIDATION_FAILED, LOAN_NOT_FOUND],
  }),
};
