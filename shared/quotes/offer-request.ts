import type { Address, Hex } from 'viem';
import { intentToLeg, Problems, readIntentList, type Intent, type PackageOffer } from '../protocol';
import { isRecord, readAddress, readBoolean, readBytes32, readTimestamp, readUint } from '../protocol/fields';

/** A maker's package offer as posted to `POST /api/quote/:id`, parsed. */
export interface OfferRequest {
  offer: PackageOffer;
  signature: Hex;
}

const FIELDS = ['offer_type', 'package_premium', 'maker_pays_taker', 'taker_address_hash', 'premium_token', 'legs', 'maker', 'nonce', 'deadline', 'signature'];

/**
 * Parses the offer body, every bad field reported at once. `legs` are the quote's intents as
 * the maker signed them (same shape as the create's `intents`).
 */
export function parseOfferRequest(body: unknown, nowSeconds: number): OfferRequest {
  const problems = new Problems();
  if (!isRecord(body)) {
    problems.add('(body)', 'must be a JSON object');
    problems.throwIfAny();
  }
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!FIELDS.includes(key)) problems.add(key, 'is not a field of a package offer');
  const need = (key: string) => {
    if (b[key] === undefined || b[key] === null) {
      problems.add(key, 'is required');
      return false;
    }
    return true;
  };
  if (need('offer_type') && b.offer_type !== 'package') problems.add('offer_type', 'must be "package" (per-leg offers are not accepted)');
  const premium = need('package_premium') ? readUint(b.package_premium, 'package_premium', problems) : undefined;
  const makerPaysTaker = b.maker_pays_taker === undefined ? false : readBoolean(b.maker_pays_taker, 'maker_pays_taker', problems);
  const takerHash = need('taker_address_hash') ? readBytes32(b.taker_address_hash, 'taker_address_hash', problems) : undefined;
  const premiumToken = need('premium_token') ? readAddress(b.premium_token, 'premium_token', problems) : undefined;
  const legs = need('legs') ? readIntentList(b.legs, 'legs', problems, nowSeconds) : [];
  const maker = need('maker') ? readAddress(b.maker, 'maker', problems) : undefined;
  const nonce = need('nonce') ? readUint(b.nonce, 'nonce', problems) : undefined;
  const deadline = need('deadline') ? readTimestamp(b.deadline, 'deadline', problems) : undefined;
  let signature: Hex | undefined;
  if (need('signature')) {
    if (typeof b.signature !== 'string' || !/^0x([0-9a-fA-F]{130}|[0-9a-fA-F]{128})$/.test(b.signature)) {
      problems.add('signature', 'must be a 65-byte (or 64-byte compact) hex signature');
    } else signature = b.signature as Hex;
  }
  if (deadline !== undefined && deadline <= nowSeconds) problems.add('deadline', `must be in the future (now is ${nowSeconds})`);
  problems.throwIfAny();
  return {
    offer: {
      takerAddressHash: takerHash as Hex,
      legs: (legs as Intent[]).map(intentToLeg),
      packagePremium: premium as bigint,
      makerPaysTaker: makerPaysTaker as boolean,
      premiumToken: premiumToken as Address,
      maker: maker as Address,
      nonce: nonce as bigint,
      deadline: deadline as number,
    },
    signature: signature as Hex,
  };
}
