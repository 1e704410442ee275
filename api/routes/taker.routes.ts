import { delegateSchemas } from '../../shared/identity';
import { parseOrThrow } from '../../shared/platform/validation';
import type { ApiContext } from '../context';
import type { RouteHandlers } from '../http/route-spec';
import { managerOf } from '../auth/org-membership';
import type { takerSpecs } from './taker.http';

/** Taker organizations: long-lived API keys (admin session) and short-lived delegates. */
export function takerHandlers(ctx: ApiContext): RouteHandlers<typeof takerSpecs> {
  const { takerAdmin } = ctx.services.identity;
  const delegate = delegateSchemas(ctx.config.DELEGATE_MAX_TTL_SECONDS);
  return {
    listTakerKeys: async (_input, req) => takerAdmin.listKeys(managerOf(req)),
    addTakerKey: async ({ body }, req) => takerAdmin.addKey(managerOf(req), body.name),
    removeTakerKey: async ({ params }, req) => takerAdmin.removeKey(managerOf(req), params.id),
    // A taker key mints with `{address, expires_in}`; the admin's session also signs a statement.
    mintDelegate: async ({ body: raw }, req) => {
      const p = req.principal;
      if (p?.kind === 'taker_key') {
        const body = parseOrThrow(delegate.withKey, raw);
        return takerAdmin.mintWithKey(p, { address: body.address, expiresIn: body.expires_in });
      }
      const body = parseOrThrow(delegate.asAdmin, raw);
      return takerAdmin.mintAsAdmin(managerOf(req), { ...body, expiresIn: body.expires_in });
    },
  };
}
