import { z } from 'zod';
import { chainIdSchema } from '../../shared/platform/validation';
import { defineRoute } from '../contract/route-contract';
import { wireChainId } from '../contract/wire-formats';

export const registrationSchema = z.object({ chain_id: chainIdSchema });

const registered = (tier: 'premium' | 'freemium') =>
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

const common = {
  tags: ['pubsub'],
  cache: 'no-store',
  request: { body: registrationSchema, examples: { local: { summary: 'The local devchain', value: { chain_id: 31337 } } } },
  errors: [],
} as const;

/** Pubsub registration: where to connect and which topics to join for a chain's request feed. */
export const pubsubContracts = {
  registerPremium: defineRoute({
    ...common,
    method: 'post',
    path: '/api/pubsub/premium',
    summary: "Register for a chain's request feed with maker rights",
    auth: { action: 'register_premium_pubsub' },
    responses: { 200: { description: 'Registered; join the topics on the socket.', schema: registered('premium') } },
  }),
  registerFreemium: defineRoute({
    ...common,
    method: 'post',
    path: '/api/pubsub/freemium',
    summary: "Register for a chain's request feed with any authenticated wallet",
    auth: { action: 'register_freemium_pubsub' },
    responses: { 200: { description: 'Registered; join the topics on the socket.', schema: registered('freemium') } },
  }),
};
