import { randomBytes } from 'node:crypto';
import { SiweMessage } from 'siwe';
import { getAddress, type Hex } from 'viem';
import type { Config } from '../platform/config';
import { UnauthorizedError } from '../platform/errors';
import type { TokenIssuer } from './jwt-tokens';
import type { IssuedNonce, NonceStore } from './nonce-store';
import type { SignatureVerifier } from './signature-verifier';

/** EIP-4361 defines version 1 only. */
const SIWE_VERSION = '1';

export interface LoginResult {
  token: string;
  address: `0x${string}`;
  expires_in: number;
}

/** The nonce fields a signed message must repeat exactly, with the label the message uses. */
const BOUND_FIELDS: { label: string; read: (m: SiweMessage) => unknown; issued: (n: IssuedNonce) => unknown }[] = [
  { label: 'URI', read: (m) => m.uri, issued: (n) => n.uri },
  { label: 'Chain ID', read: (m) => m.chainId, issued: (n) => n.chain_id },
  { label: 'statement', read: (m) => m.statement, issued: (n) => n.statement },
  { label: 'Version', read: (m) => m.version, issued: (n) => n.version },
  { label: 'Issued At', read: (m) => m.issuedAt, issued: (n) => n.issued_at },
  { label: 'Expiration Time', read: (m) => m.expirationTime, issued: (n) => n.expiration_time },
];

function unauthorized(message: string, code: string): UnauthorizedError {
  return new UnauthorizedError(message, code);
}

/** Sign-In with Ethereum: issues nonces, checks signed messages, answers session bearers. */
export class SiweService {
  constructor(private readonly deps: { config: Config; nonces: NonceStore; verifier: SignatureVerifier; tokens: TokenIssuer }) {}

  async issueNonce(): Promise<IssuedNonce> {
    const { config } = this.deps;
    const now = Date.now();
    const issued: IssuedNonce = {
      nonce: randomBytes(16).toString('hex'),
      domain: config.SIWE_DOMAIN,
      uri: config.SIWE_URI,
      chain_id: config.SIWE_CHAIN_ID,
      statement: config.SIWE_STATEMENT,
      version: SIWE_VERSION,
      issued_at: new Date(now).toISOString(),
      expiration_time: new Date(now + config.SIWE_NONCE_TTL_SECONDS * 1000).toISOString(),
    };
    await this.deps.nonces.save(issued);
    return issued;
  }

  /**
   * Checks, in order: the message parses; it is not expired; its nonce was issued and not
   * used; every nonce field is repeated exactly; the signature is the address's; then the
   * nonce is consumed. Only a successful login uses up a nonce.
   */
  async login(message: string, signature: Hex): Promise<LoginResult> {
    const msg = this.parse(message);
    this.checkTimes(msg);
    const issued = await this.deps.nonces.find(msg.nonce);
    if (issued === 'used') throw unauthorized('sign-in nonce already used; fetch a new one from GET /api/login/nonce', 'siwe_nonce_used');
    if (!issued) throw unauthorized('unknown sign-in nonce; fetch one from GET /api/login/nonce', 'siwe_nonce_unknown');
    if (msg.domain !== issued.domain) {
      throw unauthorized(`sign-in message domain does not match: expected ${issued.domain}`, 'siwe_domain_mismatch');
    }
    for (const f of BOUND_FIELDS) {
      if (f.read(msg) !== f.issued(issued)) {
        throw unauthorized(`sign-in message ${f.label} does not match the issued nonce`, 'siwe_field_mismatch');
      }
    }
    const address = getAddress(msg.address);
    const valid = await this.deps.verifier.verify({ address, message, signature, chainId: msg.chainId });
    if (!valid) throw unauthorized('signature does not match the sign-in message address', 'siwe_bad_signature');
    if (!(await this.deps.nonces.consume(issued))) {
      throw unauthorized('sign-in nonce already used; fetch a new one from GET /api/login/nonce', 'siwe_nonce_used');
    }
    const { token, expiresIn } = await this.deps.tokens.signSession(address);
    return { token, address, expires_in: expiresIn };
  }

  private parse(message: string): SiweMessage {
    try {
      return new SiweMessage(message);
    } catch {
      throw unauthorized('sign-in message is not a valid EIP-4361 message', 'siwe_invalid_message');
    }
  }

  private checkTimes(msg: SiweMessage): void {
    if (!msg.expirationTime || !msg.issuedAt) {
      throw unauthorized('sign-in message must carry Issued At and Expiration Time exactly as issued', 'siwe_field_mismatch');
    }
    const now = Date.now();
    const expires = Date.parse(msg.expirationTime);
    if (!Number.isFinite(expires) || expires <= now) throw unauthorized('sign-in message expired', 'siwe_expired');
    if (msg.notBefore && !(Date.parse(msg.notBefore) <= now)) {
      throw unauthorized('sign-in message is not valid yet (Not Before)', 'siwe_not_yet_valid');
    }
  }
}
