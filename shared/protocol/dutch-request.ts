import { zeroAddress, type Address } from 'viem';
import { MAX_LEGS } from './constants';
import { isRecord, readAddress, readArray, readBoolean, readBytes32, readTimestamp, readUint } from './fields';
import { intentToJson, intentToLeg, legToIntent, readIntentList, type Intent, type IntentJson } from './intents';
import { at, Problems } from './problems';
import type { DutchFillRequest, DutchPremium, TokenTriple } from './typed-data';

/** `dutch_request` as the API accepts and returns it: snake_case, big integers as strings. */
export interface DutchRequestJson {
  intents: IntentJson[];
  tokens: { token0: string; token1: string; premium_token: string }[];
  dutch_premium: {
    token: string;
    maker_pays_taker: boolean;
    start_premium: string;
    end_premium: string;
    decay_rate: string;
    auction_start: number;
  };
  auction_end: number;
  maker_address_hash: string;
  taker_nonce: string;
  required_authority: string;
  required_dutch_authority: string;
  referrer: string;
}

function readTokens(raw: unknown, path: string, problems: Problems): TokenTriple[] {
  const list = readArray(raw, path, problems, 1, MAX_LEGS) ?? [];
  return list.map((item, i) => {
    const p = at(path, i);
    if (!isRecord(item)) {
      problems.add(p, 'must be an object with token0, token1 and premium_token');
      return { token0: zeroAddress, token1: zeroAddress, premiumToken: zeroAddress };
    }
    return {
      token0: readAddress(item.token0, at(p, 'token0'), problems) ?? zeroAddress,
      token1: readAddress(item.token1, at(p, 'token1'), problems) ?? zeroAddress,
      premiumToken: readAddress(item.premium_token, at(p, 'premium_token'), problems) ?? zeroAddress,
    };
  });
}

function readPremium(raw: unknown, path: string, problems: Problems): Partial<DutchPremium> {
  if (!isRecord(raw)) {
    problems.add(path, 'must be an object');
    return {};
  }
  return {
    token: readAddress(raw.token, at(path, 'token'), problems),
    makerPaysTaker: readBoolean(raw.maker_pays_taker, at(path, 'maker_pays_taker'), problems),
    startPremium: readUint(raw.start_premium, at(path, 'start_premium'), problems),
    endPremium: readUint(raw.end_premium, at(path, 'end_premium'), problems),
    decayRate: readUint(raw.decay_rate, at(path, 'decay_rate'), problems),
    auctionStart: readTimestamp(raw.auction_start, at(path, 'auction_start'), problems),
  };
}

/** An optional address that defaults to the zero address (referrer, required_authority). */
function readOptionalAddress(v: unknown, path: string, problems: Problems): Address | undefined {
  return v === undefined || v === null ? zeroAddress : readAddress(v, path, problems);
}

/**
 * Parses the snake_case `dutch_request` into the on-chain DutchFillRequest; throws
 * ValidationError naming every bad field. `referrer` and `required_authority` default to the
 * zero address; the auction must end after it starts, in the future, and by the legs' expiry.
 */
export function parseDutchRequest(raw: unknown, opts: { now: number; path?: string }): DutchFillRequest {
  const path = opts.path ?? 'dutch_request';
  const problems = new Problems();
  if (!isRecord(raw)) {
    problems.add(path, 'must be an object');
    problems.throwIfAny();
  }
  const r = raw as Record<string, unknown>;
  const intents = readIntentList(r.intents, at(path, 'intents'), problems, opts.now);
  const tokens = readTokens(r.tokens, at(path, 'tokens'), problems);
  const premium = readPremium(r.dutch_premium, at(path, 'dutch_premium'), problems);
  const auctionEnd = readTimestamp(r.auction_end, at(path, 'auction_end'), problems);
  const makerAddressHash = readBytes32(r.maker_address_hash, at(path, 'maker_address_hash'), problems);
  const takerNonce = readUint(r.taker_nonce, at(path, 'taker_nonce'), problems);
  const requiredAuthority = readOptionalAddress(r.required_authority, at(path, 'required_authority'), problems);
  const requiredDutchAuthority = readAddress(r.required_dutch_authority, at(path, 'required_dutch_authority'), problems);
  const referrer = readOptionalAddress(r.referrer, at(path, 'referrer'), problems);

  if (auctionEnd !== undefined) {
    const endPath = at(path, 'auction_end');
    const expiry = intents[0]?.expiry_timestamp;
    if (premium.auctionStart !== undefined && auctionEnd <= premium.auctionStart) {
      problems.add(endPath, `must be after dutch_premium.auction_start (${premium.auctionStart})`);
    } else if (auctionEnd <= opts.now) {
      problems.add(endPath, `must be in the future (now is ${opts.now})`);
    } else if (expiry !== undefined && auctionEnd > expiry) {
      problems.add(endPath, `must not be after the legs' expiry_timestamp (${expiry})`);
    }
  }
  problems.throwIfAny();
  return {
    intents: (intents as Intent[]).map(intentToLeg),
    tokens,
    dutchPremium: premium as DutchPremium,
    auctionEnd: auctionEnd as number,
    makerAddressHash: makerAddressHash as DutchFillRequest['makerAddressHash'],
    takerNonce: takerNonce as bigint,
    requiredAuthority: requiredAuthority as Address,
    requiredDutchAuthority: requiredDutchAuthority as Address,
    referrer: referrer as Address,
  };
}

/** The snake_case JSON form of an on-chain DutchFillRequest (inverse of parseDutchRequest). */
export function dutchRequestToJson(req: DutchFillRequest): DutchRequestJson {
  return {
    intents: req.intents.map((l) => intentToJson(legToIntent(l))),
    tokens: req.tokens.map((t) => ({ token0: t.token0, token1: t.token1, premium_token: t.premiumToken })),
    dutch_premium: {
      token: req.dutchPremium.token,
      maker_pays_taker: req.dutchPremium.makerPaysTaker,
      start_premium: req.dutchPremium.startPremium.toString(),
      end_premium: req.dutchPremium.endPremium.toString(),
      decay_rate: req.dutchPremium.decayRate.toString(),
      auction_start: req.dutchPremium.auctionStart,
    },
    auction_end: req.auctionEnd,
    maker_address_hash: req.makerAddressHash.toLowerCase(),
    taker_nonce: req.takerNonce.toString(),
    required_authority: req.requiredAuthority,
    required_dutch_authority: req.requiredDutchAuthority,
    referrer: req.referrer,
  };
}
