import { Router } from 'express';
import { z } from 'zod';
import { addressSchema, chainIdQuery, parseOrThrow } from '../../shared/platform/validation';
import type { ApiContext } from '../context';
import { noStore } from '../../shared/platform/http/cache';

const params = z.object({ address: addressSchema });

/** Public portfolio snapshot of a wallet, from indexed chain data. */
export function portfolioRoutes(ctx: ApiContext): Router {
  const r = Router();
  r.get('/portfolio/:address', noStore, async (req, res) => {
    const { address } = parseOrThrow(params, req.params);
    const { chain_id } = parseOrThrow(chainIdQuery, req.query);
    res.json(await ctx.services.portfolio.portfolio(address, chain_id));
  });
  return r;
}
