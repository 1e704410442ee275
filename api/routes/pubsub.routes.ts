import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { UnauthorizedError } from '../../shared/errors';
import { quotesRequestsTopic, rfqMakerTopic, type PubsubTier } from '../../shared/events';
import { chainIdSchema, parseOrThrow } from '../../shared/validation';
import { routeAuth } from '../auth';
import type { ApiContext } from '../context';
import { noStore } from '../http/cache';
import { SOCKET_PATH } from '../socket/socket-server';

const registrationSchema = z.object({ chain_id: chainIdSchema });

/**
 * Pubsub registration: a wallet asks for a chain's request feed before joining
 * `quotes:<chain_id>:requests` on the socket. Premium needs maker rights, freemium any
 * signed-in wallet; both answer where to connect and which topics to join.
 */
export function pubsubRoutes(ctx: ApiContext): Router {
  const r = Router();
  const register = (tier: PubsubTier) => async (req: Request, res: Response) => {
    const { chain_id } = parseOrThrow(registrationSchema, req.body);
    await ctx.services.registry.requireNetwork(chain_id);
    const address = walletOf(req);
    const p = req.principal;
    // a registration made with a maker key ends with that key
    await ctx.services.pubsub.register(chain_id, address, tier, p?.kind === 'maker_key' ? p.keyId : null);
    res.json({
      status: 'registered',
      tier,
      chain_id,
      socket_path: SOCKET_PATH,
      quotes_requests_topic: quotesRequestsTopic(chain_id),
      rfq_maker_stream_topic: rfqMakerTopic(address),
    });
  };
  r.post('/pubsub/premium', noStore, ...routeAuth(ctx, 'register_premium_pubsub'), register('premium'));
  r.post('/pubsub/freemium', noStore, ...routeAuth(ctx, 'register_freemium_pubsub'), register('freemium'));
  return r;
}

/** The wallet the registration is for: the session's, the delegate's, or the maker key's bot wallet. */
function walletOf(req: Request): `0x${string}` {
  const p = req.principal;
  if (!p || p.kind === 'taker_key') throw new UnauthorizedError('an authenticated wallet is required', 'wallet_required');
  return p.address;
}
