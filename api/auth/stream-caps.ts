import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Principal } from '../../shared/identity';
import { TooManyRequestsError } from '../../shared/platform/errors';
import { hashTag, luaScript, RedisKeys } from '../../shared/platform/redis';
import type { ApiContext } from '../context';
import { ipBucket } from './rate-limit';

/** Takes a slot of one cap, or answers the ms until its oldest slot expires (shared/platform/redis/lua/stream-cap-reserve-1.lua). */
const RESERVE = luaScript('stream-cap-reserve');

/** The caps a mint counts against: what they are called (in the 429) and their config keys. */
const CAPS = {
  ip: { what: 'client IP', key: 'EXPLORE_STREAMS_PER_IP' },
  wallet: { what: 'wallet', key: 'EXPLORE_STREAMS_PER_WALLET' },
  taker_key: { what: 'taker API key', key: 'EXPLORE_STREAMS_PER_TAKER_KEY' },
  subject: { what: 'subject', key: 'EXPLORE_STREAMS_PER_SUBJECT' },
} as const;
type Cap = keyof typeof CAPS;

/** The subject a stream mint is for, from the request: a CLOB's address, or a loan network's chain id. */
function subjectOf(req: Request, feed: 'clob' | 'loan'): string {
  if (feed === 'clob')
    return `clob:${String(req.params.address ?? '')
      .toLowerCase()
      .slice(0, 64)}`;
  const q = (req.query as Record<string, unknown>).chain_id;
  const b = (req.body as Record<string, unknown> | undefined)?.chain_id;
  return `loan:${String(q ?? b ?? '').slice(0, 32)}`;
}

/** A principal's own wallet bucket: a SIWE session's wallet, a delegate's (taker organization + wallet), so no organization spends a wallet's own. */
function walletOf(p: Principal | null | undefined): string | null {
  if (p?.kind === 'siwe') return `wallet:${p.address.toLowerCase()}`;
  if (p?.kind === 'delegate') return `delegate:${p.organizationId}:${p.address.toLowerCase()}`;
  return null;
}

/**
 * Caps on live explore stream tokens, checked after the Explore gate on the two stream mints: per
 * client IP, per wallet (a SIWE session's wallet; a delegate's organization and wallet), per taker
 * API key (a keyed delegate's key) and per subject (one CLOB, one loan network). Each mint takes a
 * slot in each set for the token's lifetime (EXPLORE_STREAM_TTL_SECONDS); a mint that does not
 * answer 201 gives its slots back. Over a cap: 429 with `limit` naming its config key. One key
 * per set (its own hash tag), so each script stays in one cluster slot.
 */
export function streamCaps(ctx: ApiContext, feed: 'clob' | 'loan'): RequestHandler {
  const { config } = ctx;
  const keys = new RedisKeys(config.REDIS_PREFIX);
  const limits: Record<Cap, number> = {
    ip: config.EXPLORE_STREAMS_PER_IP,
    wallet: config.EXPLORE_STREAMS_PER_WALLET,
    taker_key: config.EXPLORE_STREAMS_PER_TAKER_KEY,
    subject: config.EXPLORE_STREAMS_PER_SUBJECT,
  };
  const setKey = (cap: Cap, id: string) => keys.key('explore', 'live-streams', cap, hashTag(id));

  return async (req: Request, res: Response, next: NextFunction) => {
    const p = req.principal;
    const wanted: [Cap, string][] = [['ip', ipBucket(req.ip)]];
    const wallet = walletOf(p);
    if (wallet) wanted.push(['wallet', wallet]);
    if (p?.kind === 'delegate' && p.keyId) wanted.push(['taker_key', `taker_key:${p.keyId}`]);
    wanted.push(['subject', subjectOf(req, feed)]);

    const slot = randomBytes(12).toString('hex');
    const now = Date.now();
    const expiry = now + config.EXPLORE_STREAM_TTL_SECONDS * 1000;
    const taken: string[] = [];
    const giveBack = () => Promise.all(taken.map((k) => ctx.redis.zrem(k, slot))).catch(() => undefined);
    for (const [cap, id] of wanted) {
      const key = setKey(cap, id);
      const waitMs = Number(await RESERVE.run(ctx.redis, [key], [now, limits[cap], expiry, slot]));
      if (waitMs > 0) {
        await giveBack();
        const { what, key: configKey } = CAPS[cap];
        throw new TooManyRequestsError(waitMs / 1000, `too many live explore streams for this ${what} (${configKey} = ${limits[cap]})`, configKey);
      }
      taken.push(key);
    }
    res.on('finish', () => {
      if (res.statusCode !== 201) void giveBack();
    });
    next();
  };
}
