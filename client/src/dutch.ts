import { zeroAddress, type Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { parseDutchRequest, type DutchRequestJson } from '@options-rfq/wire';
import { dutchPremiumAt, improvedPremium } from '@options-rfq/wire';
import { directionsHash } from '@options-rfq/wire';
import { dutchFillTypedData, type DutchAward, type DutchFillRequest } from '@options-rfq/wire';

/*
 * Dutch auctions from the client's side: the taker signs the request with the very typed data
 * the mothership verifies; a winning maker turns the award it received into the arguments of
 * the mothership's executeDutchFill. docs/DUTCH.md describes the flow.
 */
export { dutchFillTypedData, dutchPremiumAt, improvedPremium, directionsHash, parseDutchRequest };
export type { DutchRequestJson, DutchFillRequest, DutchAward };

/** The body of a Dutch `POST /api/quote`. */
export interface DutchQuoteRequest {
  chain_id: number;
  taker_address: `0x${string}`;
  offer_formats: 'dutch_only';
  /** The taker's side per leg: 1 Sell (pays premium, long), 0 Buy. */
  directions: (0 | 1)[];
  expires_in: number;
  compete_ms?: number;
  exclusive_ms?: number;
  exclusive_seconds?: number;
  taker_signature: Hex;
  dutch_request: DutchRequestJson;
}

/**
 * The API-brokered binding of a request (docs/DUTCH.md): directions hashed, the mothership as
 * auctioneer authority, zero referrer, and no fill authority unless `fillAuthority` names an
 * IFillAuthority contract (then only fillers it allows may bid and fill).
 */
export function brokeredRequest(
  r: Omit<DutchRequestJson, 'maker_address_hash' | 'required_authority' | 'required_dutch_authority' | 'referrer'>,
  directions: (0 | 1)[],
  mothership: `0x${string}`,
  opts: { fillAuthority?: `0x${string}` } = {},
): DutchRequestJson {
  return {
    ...r,
    maker_address_hash: directionsHash(directions),
    required_authority: opts.fillAuthority ?? zeroAddress,
    required_dutch_authority: mothership,
    referrer: zeroAddress,
  };
}

/** The taker's EIP-712 signature of a Dutch request (domain DutchFill, version 1, the chain's mothership). */
export function signDutchRequest(account: LocalAccount, o: { chainId: number; mothership: `0x${string}`; request: DutchRequestJson }): Promise<Hex> {
  return account.signTypedData(dutchFillTypedData(o.chainId, o.mothership, parseDutchRequest(o.request, { now: 0 })));
}

/** The public award as the API publishes it (`award` of the fillable payload). */
export interface AwardJson {
  request_digest: string;
  /** The winning bid's filler: only this address gets the improved price during the exclusive window; zero when no bid won. */
  filler: string;
  improvement_bps: string;
  not_before: number;
  exclusive_end: number;
  signature: string;
}

/**
 * The arguments of the mothership's executeDutchFill for a fillable payload. The same for every
 * caller: the contract gives the winner's price during the exclusive window to the award's
 * `filler` (msg.sender) alone, anyone else pays the override (docs/DUTCH.md).
 */
export function dutchFillArgs(p: { dutch_request: DutchRequestJson; taker_signature: string; directions: number[]; award: AwardJson }) {
  const award: DutchAward = {
    requestDigest: p.award.request_digest as Hex,
    filler: p.award.filler as `0x${string}`,
    improvementBps: BigInt(p.award.improvement_bps),
    notBefore: p.award.not_before,
    exclusiveEnd: p.award.exclusive_end,
  };
  return [parseDutchRequest(p.dutch_request, { now: 0 }), p.taker_signature as Hex, p.directions, award, p.award.signature as Hex] as const;
}
