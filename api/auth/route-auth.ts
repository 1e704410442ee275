import type { RequestHandler } from 'express';
import type { ApiContext } from '../context';
import { requireChallengeOrDelegate } from './delegate-auth';
import { exploreGate, type ExploreAction } from './explore-gate';
import { requireMakerRights } from './maker-key-auth';
import { optionalBearer, requireWallet } from './principal';
import { requireOrgManager, requireSiwe } from './siwe-auth';
import { requireDelegateMinter } from './taker-key-auth';
import { requireWalletSession } from './wallet-session-auth';

/** How a route authenticates; each rule is built from the per-credential middleware modules. */
export type AuthRule =
  | 'none'
  | 'siwe'
  | 'challenge_or_delegate'
  | 'explore_gate'
  | 'maker_rights'
  | 'maker_manager'
  | 'taker_manager'
  | 'taker_key_or_taker_admin'
  | 'optional_bearer'
  | 'any_wallet'
  | 'wallet_session';

/**
 * The spec's "Who needs what", row for row. Polling a quote is absent on purpose: a stream
 * token is not a bearer credential and the quote routes check it themselves.
 */
export const WHO_NEEDS_WHAT = {
  create_quote: 'challenge_or_delegate',
  apply_as_maker: 'none',
  read_public: 'none',
  explore: 'explore_gate',
  post_maker_offer: 'maker_rights',
  exclusive_fill: 'maker_rights',
  register_premium_pubsub: 'maker_rights',
  manage_maker_keys: 'maker_manager',
  manage_taker_keys: 'taker_manager',
  mint_delegate: 'taker_key_or_taker_admin',
  create_order: 'optional_bearer',
  /**
   * POST /api/orders/:id/cancel (beyond the spec): the owner's own credential (its SIWE session,
   * or a maker key of that bot wallet). Never a delegate: a taker key mints one for any wallet.
   */
  cancel_order: 'wallet_session',
  register_freemium_pubsub: 'any_wallet',
  /** GET /api/me ("bearer"): whichever credential speaks for a wallet: SIWE, maker key or delegate. */
  session: 'any_wallet',
  /** GET /api/login/nonce and POST /api/login: the way to a credential needs none (spec: "none"). */
  sign_in: 'none',
} as const satisfies Record<string, AuthRule>;

export type RouteAction = keyof typeof WHO_NEEDS_WHAT;

/**
 * The middleware a route mounts before its handler, looked up by the route's row:
 * `r.get('/me', ...routeAuth(ctx, 'session'), handler)`. Explore routes name their widget action:
 * `routeAuth(ctx, 'explore', 'explore-clob', routeId)`; the route id names the route's own
 * `:explore` rate-limit bucket.
 */
export function routeAuth(ctx: ApiContext, action: 'explore', exploreAction: ExploreAction, bucket?: string): RequestHandler[];
export function routeAuth(ctx: ApiContext, action: Exclude<RouteAction, 'explore'>): RequestHandler[];
export function routeAuth(ctx: ApiContext, action: RouteAction, exploreAction?: ExploreAction, bucket?: string): RequestHandler[] {
  // Widened on purpose: a rule no row uses today (e.g. 'siwe') stays buildable for the next route.
  const rule = WHO_NEEDS_WHAT[action] as AuthRule;
  switch (rule) {
    case 'none':
      return [];
    case 'siwe':
      return [requireSiwe(ctx)];
    case 'challenge_or_delegate':
      return [requireChallengeOrDelegate(ctx)];
    case 'explore_gate':
      if (!exploreAction) throw new Error('explore routes must name their challenge action');
      return [exploreGate(ctx, exploreAction, bucket)];
    case 'maker_rights':
      return [requireMakerRights(ctx)];
    case 'maker_manager':
      return [requireOrgManager(ctx, 'maker')];
    case 'taker_manager':
      return [requireOrgManager(ctx, 'taker')];
    case 'taker_key_or_taker_admin':
      return [requireDelegateMinter(ctx)];
    case 'optional_bearer':
      return [optionalBearer(ctx)];
    case 'any_wallet':
      return [requireWallet(ctx)];
    case 'wallet_session':
      return [requireWalletSession(ctx)];
  }
}
