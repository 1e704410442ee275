import { zeroAddress, type Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { parseDutchRequest, type DutchRequestJson } from '../../shared/protocol/dutch-request';
import { dutchPremiumAt, improvedPremium } from '../../shared/protocol/dutch-curve';
import { directionsHash } from '../../shared/protocol/taker-hash';
import { dutchFillTypedData, type DutchAward, type DutchFillRequest } from '../../shared/protocol/typed-data';

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

/** The API-brokered binding of a request (docs/DUTCH.md): directions hashed, the mothership as auctioneer authority, zero KYC authority and referrer. */
export function brokeredRequest(r: Omit<DutchRequestJson, 'maker_address_hash' | 'required_authority' | 'required_dutch_authority' | 'referrer'>, directions: (0 | 1)[], mothership: `0x${string}`): DutchRequestJson {
  return { ...r, maker_address_hash: directionsHash(directions), required_authority: zeroAddress, required_dutch_authority: mothership, referrer: zeroAddress };
}

/** The taker's EIP-712 signature of a Dutch request (domain DutchFill, version 1, the chain's mothership). */
export function signDutchRequest(account: LocalAccount, o: { chainId: number; mothership: `0x${string}`; request: DutchRequestJson }): Promise<Hex> {
  return account.signTypedData(dutchFillTypedData(o.chainId, o.mothership, parseDutchRequest(o.request, { now: 0 })));
}

/** The public award as the API publishes it (`award` of the fillable payload). */
export interface AwardJson {
  request_digest: string;
  exclusive_salt_hash: string;
  improvement_bps: string;
  not_before: number;
  exclusive_end: number;
  signature: string;
}

/** The arguments of the mothership's executeDutchFill for a fillable payload; `salt` only for the award's winner. */
export function dutchFillArgs(p: { dutch_request: DutchRequestJson; taker_signature: string; directions: number[]; award: AwardJson }, salt?: Hex) {
  const award: DutchAward = {
    requestDigest: p.award.request_digest as Hex,
    exclusiveSaltHash: p.award.exclusive_salt_hash as Hex,
    improvementBps: BigInt(p.award.improvement_bps),
    notBefore: p.award.not_before,
    exclusiveEnd: p.award.exclusive_end,
  };
  return [
    parseDutchRequest(p.dutch_request, { now: 0 }),
    p.taker_signature as Hex,
    p.directions,
    award,
    p.award.signature as Hex,
    salt ?? (`0x${'00'.repeat(32)}` as Hex),
  ] as const;
}
