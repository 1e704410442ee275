import { Router } from 'express';
import { addTakerKeySchema, delegateSchemas } from '../../shared/identity';
import { parseOrThrow } from '../../shared/platform/validation';
import { routeAuth } from '../auth';
import type { ApiContext } from '../context';
import { noStore } from '../../shared/platform/http/cache';
import { keyIdOf, managerOf } from '../auth/org-membership';

/** Taker organizations: long-lived API keys (admin session) and short-lived delegates. */
export function takerRoutes(ctx: ApiContext): Router {
  const r = Router();
  const { takerAdmin } = ctx.services.identity;
  const manage = routeAuth(ctx, 'manage_taker_keys');
  const delegate = delegateSchemas(ctx.config.DELEGATE_MAX_TTL_SECONDS);

  r.get('/taker/keys', noStore, ...manage, async (req, res) => {
    res.json(await takerAdmin.listKeys(managerOf(req)));
  });

  r.post('/taker/keys', noStore, ...manage, async (req, res) => {
    const body = parseOrThrow(addTakerKeySchema, req.body);
    res.status(201).json(await takerAdmin.addKey(managerOf(req), body.name));
  });

  r.delete('/taker/keys/:id', noStore, ...manage, async (req, res) => {
    res.json(await takerAdmin.removeKey(managerOf(req), keyIdOf(req, 'taker')));
  });

  r.post('/taker/delegate', noStore, ...routeAuth(ctx, 'mint_delegate'), async (req, res) => {
    const p = req.principal;
    if (p?.kind === 'taker_key') {
      const body = parseOrThrow(delegate.withKey, req.body);
      res.json(await takerAdmin.mintWithKey(p, { address: body.address, expiresIn: body.expires_in }));
      return;
    }
    const body = parseOrThrow(delegate.asAdmin, req.body);
    res.json(await takerAdmin.mintAsAdmin(managerOf(req), { ...body, expiresIn: body.expires_in }));
  });
  return r;
}
