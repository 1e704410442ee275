export { IdentityService, activeTakerKeysOf } from './identity.service';
export type { ActiveTakerKeys, SessionView, WalletPrincipal } from './identity.service';
export type { Principal, OrgKind, Role, Membership, KeyView, IssuedKey } from './identity.types';
export { ROLES, ORG_KINDS, MANAGING_ROLES, isManagingRole } from './identity.types';
export { revocationChannel, KeyRevocations } from './revocation';
export type { RevocationMessage, DropKeyRegistrations } from './revocation';
export { OrganizationService } from './organization.service';
export type { OrganizationView } from './organization.service';
export { ChallengeVerifier } from './bot-challenge.client';
export type { ChallengeOutcome } from './bot-challenge.client';
export { formatAdminStatement, parseAdminStatement, STATEMENT_TITLE, ADMIN_ACTIONS } from './admin-statement';
export type { AdminAction, AdminStatement } from './admin-statement';
export { STATEMENT_WINDOW_MS } from './admin-action-verifier';
export { KEY_PREFIX, parseKeySecret, looksLikeKeySecret } from './key-secrets';
export { hashSecret } from '../platform/secrets';
export type { IssuedNonce } from './nonce-store';
export type { LoginResult } from './siwe.service';
export type { DelegateGrant } from './taker-admin.service';
export type { SignedRequest } from './maker-admin.service';
export {
  signatureSchema,
  keyNameSchema,
  loginSchema,
  addMakerKeySchema,
  signedOnlySchema,
  transferAdminSchema,
  addTakerKeySchema,
  delegateSchemas,
  keyIdSchema,
} from '../../wire/src/identity.wire';
export { ApiKeyEntity, OrganizationEntity, OrganizationMemberEntity } from './identity.entities';
export { isMakerOrganizationWallet, makerOrganizationOf } from './organization.repository';
