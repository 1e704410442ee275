import { limitPerIp } from '../auth';
import type { ApiContext } from '../context';
import type { RouteHandlers } from '../http/route-spec';
import type { identitySpecs } from './identity.http';

/** Sign-in with Ethereum and the session it yields. */
export function identityHandlers(ctx: ApiContext): RouteHandlers<typeof identitySpecs> {
  const { identity, dutch } = ctx.services;
  const { config } = ctx;
  const window = config.AUTH_RATE_WINDOW_SECONDS;
  return {
    getLoginNonce: {
      before: [limitPerIp(ctx, 'nonce', config.NONCE_RATE_LIMIT, window)],
      handle: async () => identity.siwe.issueNonce(),
    },
    login: {
      before: [limitPerIp(ctx, 'login', config.LOGIN_RATE_LIMIT, window)],
      handle: async ({ body }) => {
        const out = await identity.siwe.login(body.message, body.signature);
        // The wallet signed in itself: maker keys bound to it without its signature are verified now.
        await identity.makerAdmin.verifyBySignIn(out.address);
        return out;
      },
    },
    getSession: async (_input, req) => {
      const p = req.principal;
      if (!p || p.kind === 'taker_key') throw new Error('session route reached without a wallet principal');
      const s = await identity.session(p);
      // A maker also learns whether its organization may bid in Dutch auctions (docs/DUTCH.md, "Fades").
      return s.tier === 'maker' ? { ...s, dutch_fades: await dutch.fades({ maker: s.address, organizationId: s.organization_id }) } : s;
    },
  };
}
