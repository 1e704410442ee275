import { Router } from 'express';
import { chainIdQuery, parseOrThrow } from '../../shared/platform/validation';
import type { ApiContext } from '../context';
import { noStore } from '../../shared/platform/http/cache';

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
