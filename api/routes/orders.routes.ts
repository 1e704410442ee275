import type { Request } from 'express';
import { UnauthorizedError } from '../../shared/platform/errors';
import { ipBucket } from '../auth/rate-limit';
import { isWalletsOwnCredential, unverifiedKey } from '../auth/wallet-session-auth';
import type { ApiContext } from '../context';
import { Reply, type RouteHandlers } from '../http/route-spec';
import type { ordersSpecs } from './orders.http';

/** The wallet the request's credential speaks for, or null (no bearer; a raw taker key has none). */
function walletOf(req: Request): `0x${string}` | null {
  const p = req.principal;
  return p && p.kind !== 'taker_key' ? p.address : null;
}

function requiredWallet(req: Request): `0x${string}` {
  const w = walletOf(req);
  if (!w) throw new UnauthorizedError('an authenticated wallet is required: a SIWE bearer, a taker delegate or a maker API key', 'wallet_required');
  return w;
}

/**
 * The caller for an order create: the wallet its bearer speaks for, whether that bearer is the
 * wallet's own credential (its SIWE session or its maker key, not a delegate): only then is the
 * order `recorded_by_owner`; and its client IP bucket, which the per-IP cap of unconfirmed
 * records counts by (the bucket of the write limits: an IPv4 address, an IPv6 /64).
 */
function creatorOf(req: Request): { wallet: `0x${string}` | null; ownCredential: boolean; ipBucket: string } {
  return { wallet: walletOf(req), ownCredential: isWalletsOwnCredential(req.principal), ipBucket: ipBucket(req.ip) };
}

/** CLOB orders and exclusive fills; shared/orders parses the bodies. */
export function ordersHandlers(ctx: ApiContext): RouteHandlers<typeof ordersSpecs> {
  const { orders, exclusiveFills } = ctx.services;
  return {
    createOrder: async ({ body }, req) => {
      const out = await orders.create(body, creatorOf(req));
      // The spec's 201 either way; a repeat of an order already recorded says so in a header.
      return new Reply(201, out.order, out.created ? {} : { 'Idempotent-Replayed': 'true' });
    },
    getOrder: async ({ params }) => orders.get(params.id),
    listOrders: async ({ query }) => orders.list({ owner: query.owner, state: query.state, chain_id: query.chain_id }, query.cursor, query.limit ?? 50),
    cancelOrder: async ({ params }, req) => orders.cancel(params.id, requiredWallet(req)),
    createExclusiveFill: async ({ body }, req) => {
      const p = req.principal;
      // An exclusive right binds the bot wallet: only a key the wallet verified may take one.
      if (p?.kind === 'maker_key' && !p.verified) throw unverifiedKey(p.keyId);
      const wallet = requiredWallet(req);
      // The organization the credential acts for: a key's issuing organization, a SIWE wallet's own membership.
      const organizationId =
        p?.kind === 'maker_key' ? p.organizationId : ((await ctx.services.identity.orgs.membership(wallet, 'maker'))?.organizationId ?? null);
      return await exclusiveFills.create(body, wallet, organizationId);
    },
  };
}
