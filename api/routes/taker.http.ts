import { addTakerKeySchema, delegateAnswer, delegateBody, newTakerKey, removedTakerKey, takerKeyList } from '../../wire/src/identity.wire';
import { defineRoute } from '../http/route-spec';
import { VALIDATION_FAILED } from '../http/error-cases';
import { keyIdParams, keyNotFound, STATEMENT_ERRORS } from './maker-keys.http';

const manage = { tags: ['taker organization'], auth: { action: 'manage_taker_keys' }, cache: 'no-store' } as const;

/** Taker organizations: long-lived API keys (admin session) and short-lived delegates. */
export const takerSpecs = {
  listTakerKeys: defineRoute({
    ...manage,
    method: 'get',
    path: '/api/taker/keys',
    summary: "List the organization's API keys",
    request: {},
    responses: { 200: { description: 'Active keys, without secrets.', schema: takerKeyList } },
    errors: [],
  }),
  addTakerKey: defineRoute({
    ...manage,
    method: 'post',
    path: '/api/taker/keys',
    summary: 'Issue a taker API key',
    request: { body: addTakerKeySchema },
    responses: { 201: { description: 'The new key with its secret, shown only here.', schema: newTakerKey } },
    errors: [],
  }),
  removeTakerKey: defineRoute({
    ...manage,
    method: 'delete',
    path: '/api/taker/keys/:id',
    summary: 'Remove a taker API key; its delegates stop working',
    request: keyIdParams('taker'),
    responses: { 200: { description: 'The removed key.', schema: removedTakerKey } },
    errors: [keyNotFound('taker')],
  }),
  mintDelegate: defineRoute({
    method: 'post',
    path: '/api/taker/delegate',
    summary: 'Mint a short-lived delegate JWT for an end-user wallet',
    description:
      'With a taker API key as bearer: `{address, expires_in}`; the delegate carries `key_id`, skips the bot challenge on quote create and may use Explore. ' +
      "With the taker admin's SIWE bearer: also a signed mint_delegate statement (`message`, `signature`); that delegate has no `key_id` and is refused on Explore. " +
      '`expires_in` is at most DELEGATE_MAX_TTL_SECONDS (default 3600).',
    tags: ['taker organization'],
    auth: { action: 'mint_delegate' },
    cache: 'no-store',
    request: {
      // Which body applies depends on the credential, so the handler picks the schema.
      body: delegateBody,
      bodyCheck: 'handler',
      examples: {
        withKey: { summary: 'Minted by a backend with its taker API key', value: { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', expires_in: 900 } },
      },
    },
    responses: {
      200: {
        description: 'The delegate: send it as `Authorization: Bearer <token>`.',
        schema: delegateAnswer,
        examples: {
          withKey: {
            summary: 'A delegate minted with a taker API key',
            value: {
              token: 'eyJhbGciOiJIUzI1NiJ9.eyJ0eXAiOiJkZWxlZ2F0ZSJ9.c2lnbmF0dXJl',
              address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
              expires_in: 900,
              key_id: '4c1f0c9e-8a55-4b0e-9d3a-2f0b5c1e7a10',
            },
          },
        },
      },
    },
    errors: [VALIDATION_FAILED, ...STATEMENT_ERRORS],
  }),
};
