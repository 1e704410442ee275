import { Router } from 'express';
import { GoneError } from '../../shared/platform/errors';
import type { ApiContext } from '../context';
import { publicCache } from '../../shared/platform/http/cache';

/** The spec's public, unauthenticated registry and settings routes. */
export function publicRoutes(ctx: ApiContext): Router {
  const r = Router();
  const { registry } = ctx.services;
  const cache = publicCache(ctx.config.PUBLIC_CACHE_SECONDS);
  const challenge = ctx.services.identity.challenge.publicSettings();

  r.get('/networks', cache, async (_req, res) => {
    res.json(await registry.networks());
  });
  r.get('/payment-tokens', cache, async (_req, res) => {
    res.json(await registry.paymentTokens());
  });
  r.get('/default-premium-tokens', cache, async (_req, res) => {
    res.json(await registry.defaultPremiumTokens());
  });
  r.get('/recommended-min-notional', cache, async (_req, res) => {
    res.json(await registry.recommendedMinNotional());
  });
  r.get('/filler-page-settings', cache, async (_req, res) => {
    res.json(await registry.fillerPageSettings());
  });
  r.get('/landing-page-settings', cache, async (_req, res) => {
    res.json(await registry.landingPageSettings(challenge));
  });
  r.get('/bond-requirements', cache, async (_req, res) => {
    res.json(await registry.bondRequirements());
  });

  // Premium activation was removed from the product; clients still calling it learn so.
  r.all('/premium/activate', () => {
    throw new GoneError('premium activation has been removed; register with POST /api/pubsub/premium', 'removed');
  });
  return r;
}
