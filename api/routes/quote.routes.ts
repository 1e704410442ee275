import { Router, type Request } from 'express';
import { NotImplementedError, UnauthorizedError } from '../../shared/platform/errors';
import { callerScope, routeAuth } from '../auth';
import type { ApiContext } from '../context';
import { noStore } from '../../shared/platform/http/cache';

/** The wallet an authenticated maker signs with: its SIWE address, or its API key's bot wallet. */
function makerWallet(req: Request): `0x${string}` {
  const p = req.principal;
  if (p && (p.kind === 'siwe' || p.kind === 'maker_key')) return p.address;
  throw new UnauthorizedError('maker rights required', 'maker_rights_required');
}

/** Standard RFQ: create, poll, and maker package offers. */
export function quoteRoutes(ctx: ApiContext): Router {
  const r = Router();
  const { quotes, offers } = ctx.services;
  r.use('/quote', noStore);

  r.post('/quote', ...routeAuth(ctx, 'create_quote'), async (req, res) => {
    const out = await quotes.create(req.body, { idempotencyKey: req.get('idempotency-key'), caller: callerScope(req) });
    if (out.replayed) res.setHeader('Idempotent-Replayed', 'true');
    res.status(out.status).json(out.body);
  });

  r.get('/quote/:id', async (req, res) => {
    const token = (typeof req.query.stream_token === 'string' ? req.query.stream_token : undefined) ?? req.get('x-quote-stream-token');
    res.json(await quotes.poll(String(req.params.id), token));
  });

  r.post('/quote/:id', ...routeAuth(ctx, 'post_maker_offer'), async (req, res) => {
    res.status(201).json({ offer: await offers.submit(String(req.params.id), req.body, makerWallet(req)) });
  });

  r.post('/quote/:id/offer', ...routeAuth(ctx, 'post_maker_offer'), () => {
    throw new NotImplementedError('Dutch bids need a Dutch quote, and the Dutch flow is not available yet', 'dutch_not_available');
  });
  return r;
}
