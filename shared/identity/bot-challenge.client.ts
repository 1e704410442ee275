import { hashSecret } from '../platform/secrets';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logging';
import type { ChallengePublicConfig } from '../networks';
import { RedisKeys, type Redis } from '../platform/redis';

export type ChallengeOutcome =
  /** No secret configured: the spec says the check passes (fails open). */
  | 'not_enforced'
  | 'passed'
  | 'missing'
  | 'rejected'
  | 'wrong_action'
  /** The token was already accepted once (here or on another replica); Turnstile tokens are single-use. */
  | 'replayed'
  /** The verifier did not answer in time or answered garbage: treated as failed, never as passed. */
  | 'unavailable';

/** Turnstile documents 2048 characters as the longest token. */
const MAX_TOKEN_LENGTH = 2048;
/** Turnstile tokens live 300 s; an accepted one is remembered that long, after which siteverify refuses it anyway. */
const TOKEN_LIFETIME_MS = 300_000;

type ChallengeConfig = Pick<Config, 'CHALLENGE_SITEKEY' | 'CHALLENGE_SECRET' | 'CHALLENGE_VERIFY_URL' | 'CHALLENGE_TIMEOUT_MS'>;

/**
 * A Cloudflare-Turnstile-compatible siteverify client. A solved token buys one request: the
 * sha-256 of every accepted token is kept in Redis (SET NX, shared by every replica) for the
 * token's lifetime, so a second use anywhere is refused even if a verifier would still say yes.
 * Refused tokens are not remembered.
 */
export class ChallengeVerifier {
  private readonly keys: RedisKeys;

  constructor(private readonly deps: { config: ChallengeConfig; redis: Redis; prefix: string; logger: Logger }) {
    this.keys = new RedisKeys(deps.prefix);
  }

  /** Enforcement follows the secret alone: without one the check fails open. */
  get enforced(): boolean {
    return Boolean(this.deps.config.CHALLENGE_SECRET);
  }

  /**
   * Advertised as enabled only when a client can actually solve it (a site key to render the
   * widget) and the server can check it (a secret).
   */
  publicSettings(): ChallengePublicConfig {
    const { CHALLENGE_SITEKEY: sitekey, CHALLENGE_SECRET: secret } = this.deps.config;
    return { sitekey: sitekey ?? null, enabled: Boolean(sitekey && secret) };
  }

  async verify(token: string | undefined, action: string, remoteIp?: string): Promise<ChallengeOutcome> {
    const secret = this.deps.config.CHALLENGE_SECRET;
    if (!secret) return 'not_enforced';
    if (!token || token.length > MAX_TOKEN_LENGTH) return 'missing';
    // Keyed on the token alone: one solve is one request, whatever action it is shown for.
    const used = this.keys.key('challenge', 'used', hashSecret(token));
    if ((await this.deps.redis.exists(used)) === 1) return 'replayed';
    const outcome = await this.siteverify(secret, token, action, remoteIp);
    if (outcome !== 'passed') return outcome;
    // Two concurrent uses can both pass siteverify; the one that claims the token first wins.
    const claimed = await this.deps.redis.set(used, '1', 'PX', TOKEN_LIFETIME_MS, 'NX');
    return claimed === 'OK' ? 'passed' : 'replayed';
  }

  private async siteverify(secret: string, token: string, action: string, remoteIp?: string): Promise<ChallengeOutcome> {
    const form = new URLSearchParams({ secret, response: token });
    if (remoteIp) form.set('remoteip', remoteIp);
    try {
      const res = await fetch(this.deps.config.CHALLENGE_VERIFY_URL, {
        method: 'POST',
        body: form,
        signal: AbortSignal.timeout(this.deps.config.CHALLENGE_TIMEOUT_MS),
      });
      if (!res.ok) throw new Error(`siteverify answered HTTP ${res.status}`);
      const body = (await res.json()) as { success?: unknown; action?: unknown; 'error-codes'?: unknown };
      if (body.success !== true) return 'rejected';
      return body.action === action ? 'passed' : 'wrong_action';
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'bot challenge verification unavailable; treating as failed');
      return 'unavailable';
    }
  }
}
