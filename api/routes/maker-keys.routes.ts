import { Router } from 'express';
import { addMakerKeySchema, signedOnlySchema, transferAdminSchema } from '../../shared/identity';
import { parseOrThrow } from '../../shared/platform/validation';
import { routeAuth } from '../auth';
import type { ApiContext } from '../context';
import { noStore } from '../../shared/platform/http/cache';
import { keyIdOf, managerOf } from '../auth/org-membership';

/** Maker organization administration: bot keys and the admin role, each change wallet-signed. */
export function makerKeysRoutes(ctx: ApiContext): Router {
  const r = Router();
  const { makerAdmin } = ctx.services.identity;
  const manage = routeAuth(ctx, 'manage_maker_keys');

  r.get('/maker/keys', noStore, ...manage, async (req, res) => {
    res.json(await makerAdmin.listKeys(managerOf(req)));
  });

  r.post('/maker/keys', noStore, ...manage, async (req, res) => {
    const body = parseOrThrow(addMakerKeySchema, req.body);
    const { address_signature: addressSignature, ...rest } = body;
    res.status(201).json(await makerAdmin.addKey(managerOf(req), { ...rest, addressSignature }));
  });

  r.delete('/maker/keys/:id', noStore, ...manage, async (req, res) => {
    const id = keyIdOf(req, 'maker');
    const body = parseOrThrow(signedOnlySchema, req.body);
    res.json(await makerAdmin.removeKey(managerOf(req), id, body));
  });

  r.put('/maker/organization', noStore, ...manage, async (req, res) => {
    const body = parseOrThrow(transferAdminSchema, req.body);
    res.json(await makerAdmin.transferAdmin(managerOf(req), { newAdmin: body.new_admin, message: body.message, signature: body.signature }));
  });
  return r;
}
