import type { Request } from 'express';
import { UnauthorizedError } from '../../shared/platform/errors';
import { quotesRequestsTopic, rfqMakerTopic, SOCKET_PATH, type PubsubTier } from '../../shared/events';
import type { Principal } from '../../shared/identity';
import type { ApiContext } from '../context';
import type { RouteHandlers, RouteInput } from '../http/route-spec';
import type { pubsubSpecs } from './pubsub.http';

type Wallet = Exclude<Principal, { kind: 'taker_key' }>;

/**
 * Pubsub registration: a wallet asks for a chain's request feed before joining
 * `quotes:<chain_id>:requests` on the socket. Premium needs maker rights, freemium any
 * signed-in wallet; both answer where to connect and which topics to join. A registration
 * made with a maker key is tied to that key and ends when it is removed.
 */
export function pubsubHandlers(ctx: ApiContext): RouteHandlers<typeof pubsubSpecs> {
  const register =
    <T extends PubsubTier>(tier: T) =>
    async ({ body }: RouteInput<(typeof pubsubSpecs)['registerPremium']['request']>, req: Request) => {
      const { chain_id } = body;
      await ctx.services.networks.requireNetwork(chain_id);
      const p = walletOf(req);
      await ctx.services.pubsub.register(chain_id, p.address, tier, p.kind === 'maker_key' ? p.keyId : null);
      return {
        status: 'registered' as const,
        tier,
        chain_id,
        socket_path: SOCKET_PATH,
        quotes_requests_topic: quotesRequestsTopic(chain_id),
        ...makerTopicOf(p),
      };
    };
  return { registerPremium: register('premium'), registerFreemium: register('freemium') };
}

/** Who the registration is for: the session's wallet, the delegate's, or the maker key's bot wallet. */
function walletOf(req: Request): Wallet {
  const p = req.principal;
  if (!p || p.kind === 'taker_key') throw new UnauthorizedError('an authenticated wallet is required', 'wallet_required');
  return p;
}

/**
 * `rfq_maker:<address>` is advertised only to a credential that can join it (see
 * docs/SOCKETS.md): a wallet's own session or a maker key. A delegate's wallet was named by a
 * taker organization, so a delegate cannot join that wallet's private topic and is not told to.
 */
function makerTopicOf(p: Wallet): { rfq_maker_stream_topic?: string } {
  return p.kind === 'delegate' ? {} : { rfq_maker_stream_topic: rfqMakerTopic(p.address) };
}
