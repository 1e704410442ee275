import { z } from 'zod';
import {
  addMakerKeySchema,
  keyIdSchema,
  makerKeyList,
  newMakerKey,
  removedMakerKey,
  signedOnlySchema,
  transferAdminSchema,
  makerKeyView,
  verifyMakerKeySchema,
} from '../../wire/src/identity.wire';
import { NotFoundError } from '../../shared/platform/errors';
import { defineRoute } from '../http/route-spec';
import { errorCase } from '../http/error-cases';
import { wireAddress } from '../http/wire-formats';
import { RPC_UNAVAILABLE } from './identity.http';

/** What checking a signed admin statement answers (docs/AUTH.md "Signed admin statements"). */
export const STATEMENT_ERRORS = [
  errorCase(403, 'statement_mismatch', 'Name does not match the organization name'),
  errorCase(403, 'statement_replayed', 'statement already used; sign a new one'),
  RPC_UNAVAILABLE,
];

const manage = { tags: ['maker organization'], auth: { action: 'manage_maker_keys' }, cache: 'no-store' } as const;

/** A key id from the path: anything that is not a key id names no key. */
export function keyIdParams(kind: 'maker' | 'taker') {
  return {
    params: z.object({ id: keyIdSchema }),
    paramsMiss: (raw: Record<string, string>) => new NotFoundError(`no ${kind} key ${String(raw.id)} in this organization`, 'key_not_found'),
  };
}

export const keyNotFound = (kind: 'maker' | 'taker') =>
  errorCase(404, 'key_not_found', `no ${kind} key 4c1f0c9e-8a55-4b0e-9d3a-2f0b5c1e7a10 in this organization`);

/** Maker organization administration: bot keys and the admin role, each change wallet-signed. */
export const makerKeysSpecs = {
  listMakerKeys: defineRoute({
    ...manage,
    method: 'get',
    path: '/api/maker/keys',
    summary: "List the organization's bot keys",
    request: {},
    responses: { 200: { description: 'Active keys, without secrets.', schema: makerKeyList } },
    errors: [],
  }),
  addMakerKey: defineRoute({
    ...manage,
    method: 'post',
    path: '/api/maker/keys',
    summary: 'Issue a bot key (verified at once when the bot wallet co-signs)',
    description:
      "The admin signs the add_member statement (`message` + `signature`): the spec's body. With `address_signature`, the bot wallet's personal_sign of the same message, the key is verified at once. " +
      'Without it the key is unverified: it authenticates and posts package offers, but may not bid on Dutch auctions, take exclusive fills or join rfq_maker:<address> until the bot wallet proves itself ' +
      '(POST /api/maker/keys/:id/verify, or a SIWE sign-in by that wallet). The secret is shown only in this answer.',
    request: { body: addMakerKeySchema },
    responses: { 201: { description: 'The new key with its secret.', schema: newMakerKey } },
    errors: [
      ...STATEMENT_ERRORS,
      errorCase(403, 'address_signature_mismatch', 'address_signature is not a signature of message by address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8'),
      errorCase(409, 'bot_address_in_use', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 is already the address of an active maker key'),
      errorCase(409, 'bot_address_in_other_organization', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 belongs to another maker organization'),
    ],
  }),
  verifyMakerKey: defineRoute({
    ...manage,
    method: 'post',
    path: '/api/maker/keys/:id/verify',
    summary: "Verify a bot key with its wallet's own signature",
    description:
      'The bot wallet personal_signs "Service maker key verification\\n\\nKey: <key id>\\nAddress: <bot address, EIP-55>\\nOrganization: <organization id>"; the key then may bid, take exclusive fills and join rfq_maker. A SIWE sign-in by the bot wallet verifies its keys too.',
    request: { ...keyIdParams('maker'), body: verifyMakerKeySchema },
    responses: { 200: { description: 'The key, verified.', schema: makerKeyView } },
    errors: [
      keyNotFound('maker'),
      errorCase(
        403,
        'address_signature_mismatch',
        "signature is not 0x70997970C51812dc3A010C7d01b50e0d17dc79C8's personal_sign of the key's verification text",
      ),
      errorCase(409, 'bot_address_in_use', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 is already the address of an active maker key'),
      errorCase(409, 'bot_address_in_other_organization', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 belongs to another maker organization'),
    ],
  }),
  removeMakerKey: defineRoute({
    ...manage,
    method: 'delete',
    path: '/api/maker/keys/:id',
    summary: 'Remove a bot key (signed remove_member statement)',
    request: { ...keyIdParams('maker'), body: signedOnlySchema },
    responses: { 200: { description: 'The removed key.', schema: removedMakerKey } },
    errors: [...STATEMENT_ERRORS, keyNotFound('maker')],
  }),
  transferMakerAdmin: defineRoute({
    ...manage,
    method: 'put',
    path: '/api/maker/organization',
    summary: "Transfer the organization's admin role (signed transfer_admin statement)",
    description:
      "The acting admin, owner or manager signs the transfer_admin statement (`message` + `signature`); the new admin signs the same message (`new_admin_signature`), proving it accepts the role. A wallet that backs another organization's active maker key is refused.",
    request: { body: transferAdminSchema },
    responses: {
      200: {
        description: 'The organization with its new admin.',
        schema: z.strictObject({ id: z.string(), name: z.string(), admin: wireAddress, previous_admin: wireAddress.nullable() }),
      },
    },
    errors: [
      ...STATEMENT_ERRORS,
      errorCase(403, 'new_admin_signature_mismatch', 'new_admin_signature is not a signature of message by 0x70997970C51812dc3A010C7d01b50e0d17dc79C8'),
      errorCase(
        409,
        'wallet_backs_other_organization_key',
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 is the bot wallet of an active maker key of another organization',
      ),
      errorCase(409, 'already_admin', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 is already the admin'),
      errorCase(409, 'already_in_organization', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 already belongs to a maker organization'),
      errorCase(409, 'already_member', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8 is already a member of this organization'),
      errorCase(409, 'admin_exists', 'the organization already has an admin; transfer admin instead'),
    ],
  }),
};
