import { randomUUID } from 'node:crypto';
import { getAddress, type Address, type Hex } from 'viem';
import type { DataSource } from 'typeorm';
import { AppError, ConflictError, ForbiddenError, NotFoundError, ValidationError, type FieldProblem } from '../platform/errors';
import type { JobQueue } from '../platform/queue';
import type { Logger } from '../platform/logging';
import { step } from '../platform/tracing';
import { packageOfferDigest, recoverDigestSigner, type Leg, type PackageOffer } from '../protocol';
import type { PairDirectory } from './pair-directory';
import { offerAnnounceJob } from './quote.jobs';
import { QuoteRepository, type OfferInsert } from './quote.repository';
import type { OfferRow, QuoteLegRow, QuoteRow } from './quote.types';
import { offerView, type OfferView } from './quote.views';
import { parseOfferRequest } from './offer-request';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UNIQUE_VIOLATION = '23505';

/** A package offer that passed every check of POST /api/quote/:id: what `store` writes. */
export interface CheckedOffer {
  quoteId: string;
  chainId: number;
  offer: PackageOffer;
  signature: Hex;
  digest: Hex;
}

/**
 * The maker's side of standard RFQ: verify a signed package offer against its quote, store it
 * and have a worker announce it. Every check names the field at fault.
 */
export class OfferService {
  private readonly repo: QuoteRepository;

  constructor(
    private readonly deps: { db: DataSource; queue: JobQueue; logger: Logger; pairs: PairDirectory },
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new QuoteRepository(deps.db);
  }

  /** `maker` is the authenticated maker's wallet (SIWE address, or the API key's bot wallet). */
  async submit(quoteId: string, body: unknown, maker: Address): Promise<OfferView> {
    const row = await this.store(await this.check(quoteId, body, maker));
    try {
      await step('offer.enqueue', () => this.deps.queue.enqueue(offerAnnounceJob, { offer_id: row.id }));
    } catch (err) {
      this.deps.logger.error({ offer_id: row.id, err: (err as Error).message }, 'enqueue failed; the sweeper will announce this offer');
    }
    return offerView(row);
  }

  /**
   * Every check of POST /api/quote/:id, in its order, reading only: `submit` runs it before it
   * stores, the dry-run (shared/dutch/offer-dry-run.ts) runs it alone. Throws the refusal the
   * route answers. The nonce is looked up here so a dry-run can tell; the unique index behind
   * `store` still decides a race between two offers of one nonce.
   */
  async check(quoteId: string, body: unknown, maker: Address): Promise<CheckedOffer> {
    const now = Math.floor(this.clock() / 1000);
    const { offer, signature } = parseOfferRequest(body, now);
    // The quote and its legs at once: two reads, one wait.
    const [quote, legs] = UUID.test(quoteId)
      ? await step('offer.read', () => Promise.all([this.repo.findQuote(quoteId), this.repo.legs(quoteId)]))
      : [null, []];
    if (!quote) throw new NotFoundError(`quote ${quoteId} not found`, 'quote_not_found');
    if (quote.offer_format === 'dutch_only') {
      throw new ConflictError(`quote ${quote.id} is a Dutch auction: bid with POST /api/quote/${quote.id}/offer`, 'dutch_quote');
    }
    if (offer.maker !== getAddress(maker)) {
      throw new ForbiddenError(`maker ${offer.maker} is not the authenticated maker ${getAddress(maker)}`, 'maker_mismatch', [
        { path: 'maker', message: 'must be the authenticated maker wallet' },
      ]);
    }
    assertOpen(quote, now);
    const dir = await step('offer.pairs', () => this.deps.pairs.get(quote.chain_id));
    if (!dir?.mothership) throw new AppError(503, 'network_unavailable', `chain ${quote.chain_id} has no mothership configured`);

    const problems: FieldProblem[] = [];
    if (offer.takerAddressHash !== quote.taker_address_hash)
      problems.push({ path: 'taker_address_hash', message: "must be the quote's taker_address_hash, copied exactly" });
    problems.push(...compareLegs(offer.legs, quote, legs));
    if (!dir.tokens.has(offer.premiumToken)) problems.push({ path: 'premium_token', message: `is not a registered token on chain ${quote.chain_id}` });
    const expiresAt = Math.floor(new Date(quote.expires_at).getTime() / 1000);
    if (offer.deadline > expiresAt) problems.push({ path: 'deadline', message: `must not be after the quote expires (${expiresAt})` });
    if (problems.length > 0) throw new ValidationError(problems, `offer does not match quote ${quote.id}: ${problems.map((p) => p.path).join(', ')}`);

    const ctx = { chainId: quote.chain_id, mothership: dir.mothership };
    // Hashed once: the signer is recovered from the digest that is stored.
    const digest = packageOfferDigest(ctx, offer);
    // The nonce lookup travels while the signature is recovered; a bad signature still wins.
    const used = this.repo.nonceUsed(quote.chain_id, offer.maker, offer.nonce.toString());
    used.catch(() => undefined);
    const signer = await step('offer.recover', async () => {
      try {
        return await recoverDigestSigner(digest, signature);
      } catch {
        return null;
      }
    });
    if (signer === null) throw ValidationError.field('signature', 'is not a valid signature');
    if (signer !== offer.maker)
      throw ValidationError.field('signature', `recovers to ${signer}, not the maker ${offer.maker}: sign the PackageOffer typed data of this quote`);
    if (await step('offer.nonce', () => used)) throw nonceUsed(offer, quote.chain_id);
    return { quoteId: quote.id, chainId: quote.chain_id, offer, signature, digest };
  }

  /**
   * Stores the offer under a lock on its quote, so an offer and the expiry cannot interleave, in
   * one statement (QuoteRepository.insertOfferIfOpen); when it stores nothing, the quote as that
   * statement saw it gives the refusal, the same as the checks'.
   */
  private async store({ quoteId, chainId, offer, signature, digest }: CheckedOffer): Promise<OfferRow> {
    const now = Math.floor(this.clock() / 1000);
    const row: Omit<OfferRow, 'created_at'> = {
      id: randomUUID(),
      quote_id: quoteId,
      chain_id: chainId,
      maker: offer.maker,
      offer_type: 'package',
      package_premium: offer.packagePremium.toString(),
      maker_pays_taker: offer.makerPaysTaker,
      premium_token: offer.premiumToken,
      nonce: offer.nonce.toString(),
      deadline: offer.deadline,
      signature: signature.toLowerCase() as `0x${string}`,
      digest,
    };
    let saw: OfferInsert;
    try {
      saw = await step('offer.store', () => this.repo.insertOfferIfOpen(row, now));
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw nonceUsed(offer, chainId);
      throw err;
    }
    if (saw.created_at) return { ...row, created_at: saw.created_at };
    if (!saw.state || !saw.expires_at) throw new NotFoundError(`quote ${quoteId} not found`, 'quote_not_found');
    assertOpen({ id: quoteId, state: saw.state, expires_at: saw.expires_at }, now);
    // The statement stores exactly when assertOpen passes on what it saw: this line is never reached.
    throw new Error(`offer on quote ${quoteId} was not stored though the quote was open`);
  }
}

function nonceUsed(offer: PackageOffer, chainId: number): ConflictError {
  return new ConflictError(`nonce ${offer.nonce} was already used by ${offer.maker} on chain ${chainId}`, 'nonce_used', [
    { path: 'nonce', message: 'already used: sign a new offer with a fresh nonce' },
  ]);
}

function assertOpen(q: Pick<QuoteRow, 'id' | 'state' | 'expires_at'>, nowSeconds: number): void {
  if (q.state !== 'open') throw new ConflictError(`quote ${q.id} is ${q.state}; offers are closed`, `quote_${q.state}`);
  if (new Date(q.expires_at).getTime() <= nowSeconds * 1000) throw new ConflictError(`quote ${q.id} is expired; offers are closed`, 'quote_expired');
}

/** Each signed leg must be the quote's leg, field for field. */
function compareLegs(signed: Leg[], q: QuoteRow, legs: QuoteLegRow[]): FieldProblem[] {
  if (signed.length !== legs.length) return [{ path: 'legs', message: `must have the quote's ${legs.length} legs, in order` }];
  const out: FieldProblem[] = [];
  signed.forEach((s, i) => {
    const l = legs[i];
    const expect: [keyof Leg, string, unknown, unknown][] = [
      ['pair6909Contract', 'pair6909_contract', s.pair6909Contract, getAddress(q.pair_contract)],
      ['optionType', 'option_type', s.optionType, Number(l.option_type)],
      ['structure', 'structure', s.structure, Number(l.structure)],
      ['startExerciseTimestamp', 'start_exercise_timestamp', s.startExerciseTimestamp, Number(l.start_exercise_timestamp)],
      ['expiryTimestamp', 'expiry_timestamp', s.expiryTimestamp, Number(l.expiry_timestamp)],
      ['strikeWad', 'strike_wad', s.strikeWad.toString(), String(l.strike_wad)],
      ['amount', 'amount', s.amount.toString(), String(l.amount)],
    ];
    for (const [, field, got, want] of expect)
      if (got !== want) out.push({ path: `legs[${i}].${field}`, message: `must equal the quote's ${field} (${String(want)})` });
  });
  return out;
}
