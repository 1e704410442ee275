import type { ExploreAction } from '../../api/auth';
import type { ExploreCredentials } from './explore';
import { bearer } from './wallets';

/** One row of the spec's Explore audience table or Explore error table, as headers and the answer they get. */
export interface GateRow {
  audience: string;
  headers: () => Record<string, string>;
  status: number | 'success';
  error?: string;
  /** The error's `code`, exactly. */
  code?: string;
}

/**
 * The gate's rows for routes of `action` (geoblock: the region rule of docs/AUTH.md). `solved(action)`
 * returns a challenge token the verifier accepts once for that action; `origin` is the one
 * allowlisted Origin. The same credential must get the same answer on every route of the action.
 */
export function exploreGateRows(action: ExploreAction, cred: () => ExploreCredentials, solved: (action: string) => string, origin: string): GateRow[] {
  const other: ExploreAction = action === 'explore-clob' ? 'explore-loan' : 'explore-clob';
  return [
    { audience: 'no bearer', headers: () => ({ Origin: origin }), status: 401, error: 'siwe or taker delegate required', code: 'explore_auth_required' },
    {
      audience: 'an invalid bearer',
      headers: () => ({ ...bearer('not.a.jwt'), Origin: origin }),
      status: 401,
      error: 'siwe or taker delegate required',
      code: 'explore_auth_required',
    },
    {
      audience: 'a maker API key',
      headers: () => ({ ...bearer(cred().makerSecret), Origin: origin }),
      status: 401,
      error: 'siwe or taker delegate required',
      code: 'explore_auth_required',
    },
    {
      audience: 'a raw taker API key',
      headers: () => bearer(cred().takerSecret),
      status: 401,
      error: 'siwe or taker delegate required',
      code: 'explore_auth_required',
    },
    {
      audience: 'a delegate without key_id (taker admin UI)',
      headers: () => bearer(cred().adminDelegate),
      status: 401,
      error: 'taker API key delegate required',
      code: 'delegate_key_required',
    },
    {
      audience: 'a keyed delegate from a geoblocked country',
      headers: () => ({ ...bearer(cred().keyedDelegate), 'CF-IPCountry': 'kp' }),
      status: 403,
      error: 'explore is not available in your region',
      code: 'geoblocked',
    },
    {
      audience: 'SIWE without Origin',
      headers: () => ({ ...bearer(cred().session), 'X-Challenge-Response': solved(action) }),
      status: 403,
      error: 'origin header required',
      code: 'origin_required',
    },
    {
      audience: 'SIWE with an Origin off the allowlist',
      headers: () => ({ ...bearer(cred().session), Origin: 'https://evil.example' }),
      status: 403,
      error: 'origin not allowed',
      code: 'origin_not_allowed',
    },
    {
      audience: 'SIWE + Origin without a challenge token',
      headers: () => ({ ...bearer(cred().session), Origin: origin }),
      status: 403,
      error: 'challenge verification required',
      code: 'challenge_required',
    },
    {
      audience: 'SIWE + Origin with a forged token',
      headers: () => ({ ...bearer(cred().session), Origin: origin, 'X-Challenge-Response': 'forged' }),
      status: 403,
      error: 'challenge verification required',
      code: 'challenge_required',
    },
    {
      audience: `SIWE + Origin with a token solved for ${other}`,
      headers: () => ({ ...bearer(cred().session), Origin: origin, 'X-Challenge-Response': solved(other) }),
      status: 403,
      error: 'challenge verification required',
      code: 'challenge_required',
    },
    {
      audience: `trading app: SIWE + allowed Origin + challenge for ${action}`,
      headers: () => ({ ...bearer(cred().session), Origin: origin, 'X-Challenge-Response': solved(action) }),
      status: 'success',
    },
    { audience: 'integrator backend: keyed delegate, no Origin, no challenge', headers: () => bearer(cred().keyedDelegate), status: 'success' },
  ];
}
