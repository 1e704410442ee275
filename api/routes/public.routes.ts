import { PUBLISHED_ABIS } from '../../shared/chain/abis';
import { GoneError } from '../../shared/platform/errors';
import type { ApiContext } from '../context';
import type { RouteHandlers } from '../http/route-spec';
import type { LandingPageSettings, publicSpecs } from './public.http';

/** The spec's public, unauthenticated network and settings routes. */
export function publicHandlers(ctx: ApiContext): RouteHandlers<typeof publicSpecs> {
  const { networks } = ctx.services;
  const challenge = ctx.services.identity.challenge.publicSettings();
  return {
    listNetworks: async () => networks.networks(),
    listPaymentTokens: async () => networks.paymentTokens(),
    listDefaultPremiumTokens: async () => networks.defaultPremiumTokens(),
    listRecommendedMinNotional: async () => networks.recommendedMinNotional(),
    getFillerPageSettings: async () => networks.fillerPageSettings(),
    // The service merges free-form operator content, so its type is loose; the spec states the fixed part.
    getLandingPageSettings: async () => (await networks.landingPageSettings(challenge)) as LandingPageSettings,
    getBondRequirements: async () => networks.bondRequirements(),
    getContractAbis: async () => ({ abis: PUBLISHED_ABIS }),
    // Premium activation was removed from the product; clients still calling it learn so.
    activatePremium: async () => {
      throw new GoneError('premium activation has been removed; register with POST /api/pubsub/premium', 'removed');
    },
  };
}
