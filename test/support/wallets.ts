import type { Express } from 'express';
import { SiweMessage } from 'siwe';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { formatAdminStatement, type AdminAction, type IssuedNonce, type OrgKind } from '../../shared/identity';
import { request } from './http';

/**
 * Real wallets for tests: viem private-key accounts that sign SIWE messages and admin
 * statements exactly as a browser wallet or a bot would.
 *
 *   const alice = newWallet();
 *   const token = await signIn(app, alice);
 *   await request(app).get('/api/me').set(bearer(token)).expect(200);
 *
 * Sign-in is rate limited per IP (LOGIN_RATE_LIMIT, default 30 a minute): a test file that
 * signs in more wallets than that raises it in its createTestEnv overrides.
 */
export function newWallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** `Authorization: Bearer <token>` for supertest's `.set()`. */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

export async function fetchNonce(app: Express): Promise<IssuedNonce> {
  const res = await request(app).get('/api/login/nonce').expect(200);
  return res.body as IssuedNonce;
}

/** The EIP-4361 message for a nonce, every field as issued unless overridden. */
export function siweMessage(nonce: IssuedNonce, address: `0x${string}`, overrides: Partial<SiweMessage> = {}): string {
  return new SiweMessage({
    domain: nonce.domain,
    address,
    statement: nonce.statement,
    uri: nonce.uri,
    version: nonce.version,
    chainId: nonce.chain_id,
    nonce: nonce.nonce,
    issuedAt: nonce.issued_at,
    expirationTime: nonce.expiration_time,
    ...overrides,
  }).prepareMessage();
}

/** A signed sign-in message, ready for POST /api/login. */
export async function signedLogin(app: Express, wallet: PrivateKeyAccount, overrides: Partial<SiweMessage> = {}): Promise<{ message: string; signature: Hex }> {
  const message = siweMessage(await fetchNonce(app), wallet.address, overrides);
  return { message, signature: await wallet.signMessage({ message }) };
}

/** Signs in through the real routes and returns the session bearer token. */
export async function signIn(app: Express, wallet: PrivateKeyAccount): Promise<string> {
  const res = await request(app)
    .post('/api/login')
    .send(await signedLogin(app, wallet))
    .expect(200);
  return res.body.token as string;
}

export interface StatementFields {
  kind?: OrgKind;
  action: AdminAction | string;
  /** Defaults to the signing wallet. */
  admin?: `0x${string}`;
  member: `0x${string}`;
  organization: string;
  name: string;
  /** Defaults to now. */
  issuedAt?: string;
}

/** An admin statement signed with personal_sign by `wallet`: `{message, signature}` to put in a request body. */
export async function signStatement(wallet: PrivateKeyAccount, f: StatementFields): Promise<{ message: string; signature: Hex }> {
  const message = formatAdminStatement({
    kind: f.kind ?? 'maker',
    action: f.action,
    admin: f.admin ?? wallet.address,
    member: f.member,
    organization: f.organization,
    name: f.name,
    issuedAt: f.issuedAt ?? new Date().toISOString(),
  });
  return { message, signature: await wallet.signMessage({ message }) };
}

/**
 * The body of POST /api/maker/keys: the admin's `add_member` statement, signed by the admin and
 * by the bot wallet itself (`address_signature`), which proves the bot consents to the binding.
 */
export async function signedKeyAdd(
  admin: PrivateKeyAccount,
  bot: PrivateKeyAccount,
  f: { organization: string; name: string; issuedAt?: string },
): Promise<{ address: `0x${string}`; name: string; message: string; signature: Hex; address_signature: Hex }> {
  const signed = await signStatement(admin, { action: 'add_member', member: bot.address, organization: f.organization, name: f.name, issuedAt: f.issuedAt });
  return { address: bot.address, name: f.name, ...signed, address_signature: await bot.signMessage({ message: signed.message }) };
}

/** The payload of a JWT, unverified: for asserting what the server put in it. */
export function jwtClaims(token: string): Record<string, unknown> {
  const [, payload] = token.split('.');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
}
