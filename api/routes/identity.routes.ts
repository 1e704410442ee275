import { Router } from 'express';
import { loginSchema } from '../../shared/identity';
import { parseOrThrow } from '../../shared/platform/validation';
import { limitPerIp, routeAuth } from '../auth';
import type { ApiContext } from '../context';
import { noStore } from '../../shared/platform/http/cache';

/** Sign-in with Ethereum and the session it yields. */
export function identityRoutes(ctx: ApiContext): Router {
  const r = Router();
  const { identity } = ctx.services;
  const { config } = ctx;
  const window = config.AUTH_RATE_WINDOW_SECONDS;

  r.get('/login/nonce', noStore, limitPerIp(ctx, 'nonce', config.NONCE_RATE_LIMIT, window), async (_req, res) => {
    res.json(await identity.siwe.issueNonce());
  });

  r.post('/login', noStore, limitPerIp(ctx, 'login', config.LOGIN_RATE_LIMIT, window), async (req, res) => {
    const body = parseOrThrow(loginSchema, req.body);
    res.json(await identity.siwe.login(body.message, body.signature));
  });

  r.get('/me', noStore, ...routeAuth(ctx, 'session'), async (req, res) => {
    const p = req.principal;
    if (!p || p.kind === 'taker_key') throw new Error('session route reached without a wallet principal');
    res.json(await identity.session(p));
  });
  return r;
}
