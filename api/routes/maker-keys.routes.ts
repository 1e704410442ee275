import type { ApiContext } from '../context';
import type { RouteHandlers } from '../http/route-spec';
import { managerOf } from '../auth/org-membership';
import type { makerKeysSpecs } from './maker-keys.http';

/** Maker organization administration: bot keys and the admin role, each change wallet-signed. */
export function makerKeysHandlers(ctx: ApiContext): RouteHandlers<typeof makerKeysSpecs> {
  const { makerAdmin } = ctx.services.identity;
  return {
    listMakerKeys: async (_input, req) => makerAdmin.listKeys(managerOf(req)),
    addMakerKey: async ({ body }, req) => {
      const { address_signature: addressSignature, ...rest } = body;
      return makerAdmin.addKey(managerOf(req), { ...rest, addressSignature });
    },
    verifyMakerKey: async ({ params, body }, req) => makerAdmin.verifyKey(managerOf(req), params.id, body.signature),
    removeMakerKey: async ({ params, body }, req) => makerAdmin.removeKey(managerOf(req), params.id, body),
    transferMakerAdmin: async ({ body }, req) =>
      makerAdmin.transferAdmin(managerOf(req), {
        newAdmin: body.new_admin,
        message: body.message,
        signature: body.signature,
        newAdminSignature: body.new_admin_signature,
      }),
  };
}
