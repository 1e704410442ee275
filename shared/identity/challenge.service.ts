import { hashSecret } from '../secrets';
import type { Config } from '../config';
import type { Logger } from '../logging';
import { RedisKeys, type Redis } from '../redis';

export type ChallengeOutcome =
  /** No secret configured: the spec says the check passes (fails open). */
  | 'not_enforced'
  | 'passed'
  | 'missing'
  | 'rejected'
  | 'wrong_action'
  /** The verifier did not answer in time or answered garbage: treated as failed, never as passed. */
  | 'unavailable';

/** Turnstile documents 2048 characters as the longest token. */
const MAX_TOKEN_LENGTH = 2048;
/** Turnstile tokens are valid for 300 s; a verified one is honoured that long for its action. */
const VERIFIED_TTL_MS = 300_000;

type ChallengeConfig = Pick<Config, 'CHALLENGE_SECRET' | 'CHALLENGE_VERIFY_URL' | 'CHALLENGE_TIMEOUT_MS'>;

/**
 * A Cloudflare-Turnstile-compatible siteverify client. Turnstile refuses a token the second
 * time it is verified, so a success is remembered (by token hash and action) for the token's
 * lifetime: a page may send the same token with several requests.
 */
export class ChallengeVerifier {
  private readonly keys: RedisKeys;

  constructor(
    private readonly deps: { config: ChallengeConfig; redis: Redis; prefix: string; logger: Logger },
  ) {
    this.keys = new RedisKeys(deps.prefix);
  }

  get enforced(): boolean {
    return Boolean(this.deps.config.CHALLENGE_SECRET);
  }

  async verify(token: string | undefined, action: string, remoteIp?: string): Promise<ChallengeOutcome> {
    const secret = this.deps.config.CHALLENGE_SECRET;
    if (!secret) return 'not_enforced';
    if (!token || token.length > MAX_TOKEN_LENGTH) return 'missing';
    const remembered = this.keys.key('challenge', 'ok', action, hashSecret(token));
    if ((await this.deps.redis.exists(remembered)) === 1) return 'passed';
    const outcome = await this.siteverify(secret, token, action, remoteIp);
    if (outcome === 'passed') await this.deps.redis.set(remembered, '1', 'PX', VERIFIED_TTL_MS);
    return outcome;
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
