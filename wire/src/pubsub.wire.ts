import { z } from 'zod';
import { wireChainId } from './formats';
import { chainIdSchema } from './validation';

/** POST /api/pubsub/premium and /api/pubsub/freemium: the chain to register for. */
export const registrationSchema = z.object({ chain_id: chainIdSchema });

/** Where to connect and which topics to join. */
export const pubsubRegistered = (tier: 'premium' | 'freemium') =>
  z.strictObject({
    status: z.literal('registered'),
    tier: z.literal(tier),
    chain_id: wireChainId,
    socket_path: z.string().meta({ description: 'Where the Phoenix socket listens: `/socket`.' }),
    quotes_requests_topic: z.string().meta({ description: '`quotes:<chain_id>:requests`: the request feed to join.' }),
    rfq_maker_stream_topic: z
      .string()
      .optional()
      .meta({ description: '`rfq_maker:<address>`: advertised only to a credential that can join it (a session or a maker key, not a delegate).' }),
  });
