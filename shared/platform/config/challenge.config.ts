import { z } from 'zod';
import { envInt, envUrl } from './schema-helpers';

/**
 * Bot challenge (Cloudflare Turnstile compatible). No secret = the check fails open; the
 * challenge is advertised as enabled only with both the site key and the secret.
 */
export const challengeEnv = {
  CHALLENGE_SITEKEY: z.string().max(256).optional(),
  CHALLENGE_SECRET: z.string().max(256).optional(),
  CHALLENGE_VERIFY_URL: envUrl('https://challenges.cloudflare.com/turnstile/v0/siteverify', ['http:', 'https:']),
  CHALLENGE_TIMEOUT_MS: envInt(3000, 100, 30000),
};
