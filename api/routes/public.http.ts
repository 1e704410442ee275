import { z } from 'zod';
import { defineRoute } from '../http/route-spec';
import { errorCase } from '../http/error-cases';
import { wireDecimal } from '../http/wire-formats';
import {
  contractAbisAnswer,
  defaultPremiumTokensAnswer,
  networksAnswer,
  networkView,
  paymentToken,
  paymentTokensAnswer,
  tokenView,
} from '../../wire/src/public.wire';

/** Operator content merged with the challenge config, tokens and networks. */
const landingPageSettings = z.looseObject({
  challenge: z.strictObject({
    sitekey: z.string().nullable(),
    enabled: z.boolean().meta({ description: 'True only when the server has both a site key and a secret.' }),
  }),
  default_premium_tokens: z.array(tokenView),
  payment_tokens: z.array(paymentToken),
  networks: z.array(networkView),
});

export type LandingPageSettings = z.input<typeof landingPageSettings>;

const publicRoute = { tags: ['public data'], auth: { action: 'read_public' }, cache: 'public', request: {}, errors: [] } as const;

/** The spec's public, unauthenticated network and settings routes. */
export const publicSpecs = {
  listNetworks: defineRoute({
    ...publicRoute,
    method: 'get',
    path: '/api/networks',
    summary: 'Accepted chains with RPC URLs and contract maps',
    responses: { 200: { description: 'Enabled networks.', schema: networksAnswer } },
  }),
  listPaymentTokens: defineRoute({
    ...publicRoute,
    method: 'get',
    path: '/api/payment-tokens',
    summary: 'Payment tokens (quote defaults and testnet faucet tokens)',
    responses: { 200: { description: 'Payment tokens of every network.', schema: paymentTokensAnswer } },
  }),
  listDefaultPremiumTokens: defineRoute({
    ...publicRoute,
    method: 'get',
    path: '/api/default-premium-tokens',
    summary: 'Default premium tokens',
    responses: { 200: { description: 'Default premium tokens of every network.', schema: defaultPremiumTokensAnswer } },
  }),
  listRecommendedMinNotional: defineRoute({
    ...publicRoute,
    method: 'get',
    path: '/api/recommended-min-notional',
    summary: 'Suggested minimum notionals per token',
    responses: {
      200: {
        description: 'Tokens with a suggested minimum, in token units.',
        schema: z.strictObject({ min_notional: z.array(tokenView.extend({ amount: wireDecimal })) }),
      },
    },
  }),
  getFillerPageSettings: defineRoute({
    ...publicRoute,
    method: 'get',
    path: '/api/filler-page-settings',
    summary: 'Maker / filler page content',
    responses: { 200: { description: 'Operator-defined content.', schema: z.record(z.string(), z.unknown()) } },
  }),
  getLandingPageSettings: defineRoute({
    ...publicRoute,
    method: 'get',
    path: '/api/landing-page-settings',
    summary: 'Trading landing settings, with the bot-challenge public config',
    responses: {
      200: {
        description: 'Operator-defined content merged with the challenge config, tokens and networks.',
        schema: landingPageSettings,
      },
    },
  }),
  getBondRequirements: defineRoute({
    ...publicRoute,
    method: 'get',
    path: '/api/bond-requirements',
    summary: 'Maker bond minimums per token',
    responses: {
      200: {
        description: 'Keyed by token symbol; amounts in token units.',
        schema: z.strictObject({ tokens: z.record(z.string(), z.strictObject({ premium_bond_amount: wireDecimal, fill_bond_amount: wireDecimal })) }),
      },
    },
  }),
  getContractAbis: defineRoute({
    ...publicRoute,
    method: 'get',
    path: '/api/abis',
    summary: "The reference contracts' ABIs",
    description:
      "JSON ABIs of the contracts a maker or taker calls: the mothership, option pairs, the BondVault and the tokens (with the test tokens' `faucet()`). " +
      'Addresses are in GET /api/networks. The same ABIs on every network: they belong to this build of the reference contracts.',
    responses: { 200: { description: 'One JSON ABI per contract kind.', schema: contractAbisAnswer } },
  }),
  activatePremium: defineRoute({
    ...publicRoute,
    method: 'all',
    path: '/api/premium/activate',
    summary: 'Removed: always 410',
    description: 'Premium activation was removed from the product; register with POST /api/pubsub/premium.',
    cache: 'no-store',
    deprecated: true,
    responses: {},
    errors: [errorCase(410, 'removed', 'premium activation has been removed; register with POST /api/pubsub/premium')],
  }),
};
