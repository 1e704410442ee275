import { Router } from 'express';
import { z } from 'zod';
import { parseOrThrow } from '../../shared/validation';
import type { ApiContext } from '../context';
import { noStore } from '../http/cache';

/** `?chain_id=` as a query string gives it: a positive integer, optional. */
export const chainIdQuery = z.object({
  chain_id: z
    .string({ message: 'must be a single positive integer' })
    .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
    .transform(Number)
    .optional(),
});

/** Indexer health and discovered CLOBs; 503 while the indexer or a network's RPC is unavailable. */
export function indexerRoutes(ctx: ApiContext): Router {
  const r = Router();
  const { indexerStatus } = ctx.services;

  r.get('/indexer/status', noStore, async (req, res) => {
    const { chain_id } = parseOrThrow(chainIdQuery, req.query);
    res.json(await indexerStatus.status(chain_id));
  });
  r.get('/indexer/cores', noStore, async (req, res) => {
    const { chain_id } = parseOrThrow(chainIdQuery, req.query);
    res.json(await indexerStatus.cores(chain_id));
  });
  return r;
}
