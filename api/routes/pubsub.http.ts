import { pubsubRegistered, registrationSchema } from '../../wire/src/pubsub.wire';
import { defineRoute } from '../http/route-spec';

const common = {
  tags: ['pubsub'],
  cache: 'no-store',
  request: { body: registrationSchema, examples: { local: { summary: 'The local devchain', value: { chain_id: 31337 } } } },
  errors: [],
} as const;

/** Pubsub registration: where to connect and which topics to join for a chain's request feed. */
export const pubsubSpecs = {
  registerPremium: defineRoute({
    ...common,
    method: 'post',
    path: '/api/pubsub/premium',
    summary: "Register for a chain's request feed with maker rights",
    auth: { action: 'register_premium_pubsub' },
    responses: { 200: { description: 'Registered; join the topics on the socket.', schema: pubsubRegistered('premium') } },
  }),
  registerFreemium: defineRoute({
    ...common,
    method: 'post',
    path: '/api/pubsub/freemium',
    summary: "Register for a chain's request feed with any authenticated wallet",
    auth: { action: 'register_freemium_pubsub' },
    responses: { 200: { description: 'Registered; join the topics on the socket.', schema: pubsubRegistered('freemium') } },
  }),
};
