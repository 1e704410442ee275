import { randomBytes, randomUUID } from 'node:crypto';
import { getAddress, toHex, zeroAddress, type Address } from 'viem';
import type { DataSource, EntityManager } from 'typeorm';
import type { z } from 'zod';
import type { Config } from '../platform/config';
import { AppError, ConflictError, ForbiddenError, NotFoundError, ServiceUnavailableError, ValidationError } from '../platform/errors';
import { IdempotencyService } from '../platform/idempotency';
import type { JobQueue } from '../platform/queue';
import type { Logger } from '../platform/logging';
import type { Queryable } from '../platform/db';
import { hashStreamToken, type StreamTokens } from '../platform/stream-tokens';
import { dutchFillDigest, dutchRequestToJson, legToIntent, type Intent, recognizeStrategy, recoverDutchFillSigner, takerAddressHashFast } from '../protocol';
import { FillAuthorityReader, type FillAuthorityNetwork } from '../chain/fill-authority';
import { quoteExpireJob, QuoteRepository, type ChainDirectory, type CreatedQuote, type PairDirectory, type QuoteLegRow, type QuoteRow } from '../quotes';
import { parseDutchQuoteRequest, type DutchQuoteRequest } from './dutch-quote-request';
import { NetworksService } from '../networks';
import { dutchAnnounceJob, dutchBidAnnounceJob } from './dutch.jobs';
import { PHASE_ENDS } from './dutch-auctioneer';
import { DutchRepository, type NewDutchQuote } from './dutch.repository';
import type { DutchColumns, JsonObject } from './dutch.types';
import { assertNotFaded, assertRoomForRight, fadeStatus, type FadePolicy, type FadeScope, type FadeStatus } from './dutch-fades';
import { assertFillerConsent } from './filler-consent';
import { assertTakerMayAuction, type UnfillablePolicy } from './taker-unfillable';
import { FillBondCheck, lockMakerRights } from '../bonds';
import { assertDutchTokensOfPair, PairTokens } from './dutch-pair-tokens';
import { makerBidView, takerBidView, takerDutchView } from './dutch.views';
import { parseOrThrow } from '../platform/validation';
import { dutchBidBody } from '../../wire/src/quote-answers';

type DutchBidBody = z.output<typeof dutchBidBody>;

/**
 * Who bids: the wallet it signs with, and the maker organization its credential acts for (a
 * maker key's issuing organization, or the SIWE wallet's own membership). Fades, limits and
 * bond reservations are that organization's.
 */
export interface Bidder {
  wallet: Address;
  organizationId: string | null;
  /** Set when the bidder is a maker key its bot wallet has not verified: such a key may not bid. */
  unverifiedKey?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UNIQUE_VIOLATION = '23505';

/** The API's side of Dutch auctions: create one, take makers' bids, show the taker its auction. Workers advance the phases. */
export class DutchService {
  private readonly repo: DutchRepository;
  private readonly quotes: QuoteRepository;
  private readonly networks: NetworksService;
  private readonly idempotency: IdempotencyService;
  private readonly authorities: FillAuthorityReader;
  private readonly pairTokens: PairTokens;

  constructor(
    private readonly deps: { config: Config; db: DataSource; queue: JobQueue; logger: Logger; pairs: PairDirectory; streamTokens: StreamTokens },
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new DutchRepository(deps.db);
    this.quotes = new QuoteRepository(deps.db);
    this.networks = new NetworksService(deps.db);
    this.idempotency = new IdempotencyService(deps.db);
    this.authorities = new FillAuthorityReader(deps.config.FILL_AUTHORITY_RPC_TIMEOUT_MS);
    this.pairTokens = new PairTokens(deps.db);
  }

  /**
   * Validates a Dutch create (every refusal a 400 naming its field), stores the quote in phase
   * `competing`, and schedules its announce, award and expiry.
   */
  async create(
    body: unknown,
    opts: { idempotencyKey?: string; caller: string; takerOrganizationId?: string | null },
  ): Promise<{ status: number; body: CreatedQuote; replayed: boolean }> {
    if (opts.idempotencyKey !== undefined) IdempotencyService.checkKey(opts.idempotencyKey);
    let nowMs = this.clock();
    const limits = await this.networks.setting('dutch_limits');
    const req = parseDutchQuoteRequest(body, { now: Math.floor(nowMs / 1000), maxExpiresIn: this.deps.config.QUOTE_MAX_EXPIRES_IN, dutch: limits });
    const dir = await this.deps.pairs.get(req.chain_id);
    if (!dir) throw ValidationError.field('chain_id', `unknown chain ${req.chain_id}: see GET /api/networks`);
    const pair = req.request.intents[0].pair6909Contract;
    if (!dir.pairs.has(getAddress(pair))) {
      throw ValidationError.field('dutch_request.intents[0].pair6909_contract', `${pair} is not a known pair (CLOB) contract on chain ${req.chain_id}`);
    }
    if (!dir.mothership) throw new AppError(503, 'network_unavailable', `chain ${req.chain_id} has no mothership configured`);
    if (getAddress(req.request.requiredDutchAuthority) !== dir.mothership) {
      throw ValidationError.field('dutch_request.required_dutch_authority', `must be the mothership ${dir.mothership} (any registered auctioneer)`);
    }
    const ctx = { chainId: req.chain_id, mothership: dir.mothership };
    const signer = await recoverDutchFillSigner(ctx, req.request, req.taker_signature).catch(() => null);
    if (signer !== getAddress(req.taker_address)) {
      throw ValidationError.field(
        'taker_signature',
        signer
          ? `recovers to ${signer}, not taker_address: sign the DutchFillRequest typed data (domain DutchFill, version 1, this chain and mothership)`
          : 'is not a valid signature',
      );
    }
    await assertDutchTokensOfPair(this.pairTokens, dir, req.request);
    // After the signature: the record is of the wallet that signed (and of the delegate's organization).
    const takerOrganizationId = opts.takerOrganizationId ?? null;
    await assertTakerMayAuction(this.deps.db, { address: getAddress(req.taker_address), organizationId: takerOrganizationId }, this.unfillablePolicy(), nowMs);
    // The phase windows start once the request is checked (the pair's tokens may need a read).
    nowMs = this.clock();

    // After the signature: only a request its taker really signed costs a chain read.
    if (req.request.requiredAuthority !== zeroAddress) await this.assertFillAuthority(dir, req.request.requiredAuthority);

    const expiresAt = Math.min(nowMs + req.expires_in * 1000, req.request.auctionEnd * 1000);
    const competeMs = Math.max(0, Math.min(req.compete_ms ?? limits.default_compete_ms, expiresAt - nowMs));
    const exclusiveMs = req.exclusive_ms ?? limits.default_exclusive_ms;
    const ttl = Math.ceil((expiresAt - nowMs) / 1000) + this.deps.config.QUOTE_STREAM_GRACE_SECONDS;
    const digest = dutchFillDigest(ctx, req.request);
    // The token is minted before the row that names its hash; a create that stores no quote of its
    // own (a taker nonce already used, a concurrent twin's replay) takes its token back, so a refusal writes nothing.
    let minted: string | null = null;
    const work = async (m: EntityManager | null) => {
      minted = await this.deps.streamTokens.mint('rfq', ttl, {});
      return this.insert(m, req, { nowMs, expiresAt, competeMs, exclusiveMs, digest, takerOrganizationId }, minted);
    };
    const unmint = async () => {
      if (minted) await this.deps.streamTokens.revoke('rfq', minted).catch(() => false);
    };
    let out: { status: number; body: CreatedQuote; replayed: boolean };
    try {
      out = opts.idempotencyKey
        ? await this.idempotency.run('quote.create', opts.caller, opts.idempotencyKey, body, work)
        : { ...(await work(null)), replayed: false };
    } catch (err) {
      await unmint();
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) {
        throw ValidationError.field(
          'dutch_request.taker_nonce',
          `${req.request.takerNonce} was already used by this taker on chain ${req.chain_id}: sign a request with a fresh nonce`,
        );
      }
      throw err;
    }
    if (out.replayed) await unmint();
    else await this.schedule(out.body.quote.id, competeMs, expiresAt - this.clock());
    return out;
  }

  private async insert(
    m: EntityManager | null,
    req: DutchQuoteRequest,
    t: { nowMs: number; expiresAt: number; competeMs: number; exclusiveMs: number; digest: `0x${string}`; takerOrganizationId: string | null },
    token: string,
  ): Promise<{ status: number; body: CreatedQuote }> {
    const salt = toHex(randomBytes(32));
    const intents = req.request.intents.map(legToIntent);
    const legs: QuoteLegRow[] = intents.map((i: Intent, idx: number) => ({
      idx,
      option_type: i.option_type,
      structure: i.structure,
      direction: req.directions[idx],
      strike_wad: i.strike_wad.toString(),
      amount: i.amount.toString(),
      start_exercise_timestamp: i.start_exercise_timestamp,
      expiry_timestamp: i.expiry_timestamp,
    }));
    const row: NewDutchQuote = {
      id: randomUUID(),
      chain_id: req.chain_id,
      offer_format: 'dutch_only',
      polarity: req.polarity,
      strategy: recognizeStrategy(intents),
      taker_address: req.taker_address,
      referrer: req.request.referrer,
      taker_salt: salt,
      taker_address_hash: takerAddressHashFast(req.taker_address, salt, req.directions, req.request.referrer),
      directions: req.directions,
      pair_contract: getAddress(req.request.intents[0].pair6909Contract),
      expiry_timestamp: intents[0].expiry_timestamp,
      stream_token_hash: hashStreamToken(token),
      expires_at: new Date(t.expiresAt),
      dutch_request: dutchRequestToJson(req.request) as unknown as JsonObject,
      dutch_request_digest: t.digest,
      taker_signature: req.taker_signature.toLowerCase(),
      taker_nonce: req.request.takerNonce.toString(),
      compete_ends_at: new Date(t.nowMs + t.competeMs),
      exclusive_ms: t.exclusiveMs,
      taker_organization_id: t.takerOrganizationId,
    };
    const createdAt = await this.repo.insert(m, row, legs);
    const quote: QuoteRow = { ...row, state: 'open', created_at: createdAt, closed_at: null, fill_tx_hash: null };
    const d = {
      id: row.id,
      dutch_phase: 'competing' as const,
      dutch_request: row.dutch_request,
      dutch_request_digest: t.digest,
      taker_signature: row.taker_signature as `0x${string}`,
      compete_ends_at: row.compete_ends_at,
      exclusive_ms: t.exclusiveMs,
      exclusive_ends_at: null,
      awarded_at: null,
      opened_at: null,
      award: null,
      winner: null,
    };
    return { status: 201, body: { quote: takerDutchView(quote, legs, d), stream_token: token, topic: `rfq_stream:${token}` } };
  }

  /** Announce now, award at the competition's end, expire at the auction's; a failure leaves the work to the sweeper. */
  private async schedule(quoteId: string, competeMs: number, expiresInMs: number): Promise<void> {
    try {
      await this.deps.queue.enqueueMany([
        { spec: dutchAnnounceJob, payload: { quote_id: quoteId } },
        { spec: PHASE_ENDS.competing, payload: { quote_id: quoteId }, opts: { delay: competeMs } },
        { spec: quoteExpireJob, payload: { quote_id: quoteId }, opts: { delay: Math.max(0, expiresInMs) } },
      ]);
    } catch (err) {
      this.deps.logger.error({ quote_id: quoteId, err: (err as Error).message }, 'enqueue failed; the sweeper will advance this Dutch quote');
    }
  }

  /**
   * A maker's both-side bid, while the quote competes; a later bid by the same maker replaces
   * its earlier one. Stored under the quote's lock, so a bid and the award cannot interleave.
   */
  async bid(quoteId: string, body: unknown, bidder: Bidder) {
    const maker = bidder.wallet;
    const { bid: b, filler } = await this.checkBid(quoteId, body, bidder);
    // Read before the transaction: the re-check under the lock runs on its connection alone.
    const fixed = { minimums: await this.networks.bondRequirements(), dir: await this.deps.pairs.get((await this.quotes.findQuote(quoteId))?.chain_id ?? 0) };
    const bid = await this.deps.db.transaction(async (m) => {
      // One new right at a time per maker wallet: the open rights and the bond reservation again, under its lock.
      await lockMakerRights(m, maker);
      const locked = await this.quotes.lockQuote(m, quoteId);
      if (!locked) throw new NotFoundError(`quote ${quoteId} not found`, 'quote_not_found');
      const d = await this.repo.find(quoteId, m);
      this.assertCompeting(locked, d);
      await this.assertRoomAndBond({ db: m, oneConnection: true }, locked, d, { maker: getAddress(maker), organizationId: bidder.organizationId }, fixed);
      return this.repo.upsertBid(m, quoteId, getAddress(maker), b.buy_override_bps, b.sell_override_bps, filler, bidder.organizationId);
    });
    try {
      await this.deps.queue.enqueue(dutchBidAnnounceJob, { bid_id: bid.id, version: Number(bid.version) });
    } catch (err) {
      this.deps.logger.error({ bid_id: bid.id, err: (err as Error).message }, 'enqueue failed; the sweeper will announce this bid');
    }
    return makerBidView(bid);
  }

  /**
   * Every check of POST /api/quote/:id/offer, in its order, reading only: `bid` runs it before
   * it stores (and asks again under the quote's lock whether the competition is still open),
   * the dry-run (shared/dutch/offer-dry-run.ts) runs it alone. Throws the refusal the route answers.
   */
  async checkBid(quoteId: string, body: unknown, bidder: Bidder): Promise<{ bid: DutchBidBody; filler: Address }> {
    const bid = parseOrThrow(dutchBidBody, body);
    if (bidder.unverifiedKey) {
      throw new ForbiddenError(
        `maker key ${bidder.unverifiedKey} is unverified: its bot wallet has not proved it consents. Verify it (POST /api/maker/keys/${bidder.unverifiedKey}/verify with the bot wallet's signature, or sign in with the bot wallet) before it bids`,
        'maker_key_unverified',
      );
    }
    const maker = getAddress(bidder.wallet);
    const quote = UUID.test(quoteId) ? await this.quotes.findQuote(quoteId) : null;
    if (!quote) throw new NotFoundError(`quote ${quoteId} not found`, 'quote_not_found');
    const d = await this.repo.find(quoteId);
    this.assertCompeting(quote, d);
    await this.assertMayWin(quote, d, { maker, organizationId: bidder.organizationId });
    const filler = getAddress(bid.filler ?? maker);
    await this.assertFillerConsents(quote.id, maker, filler, bidder.organizationId, bid.filler_signature);
    await this.assertAllowedFiller(quote, maker, filler);
    return { bid, filler };
  }

  /**
   * A filler other than the bidding wallet is named by consent: a wallet the bidding
   * organization registered (a member, or the bot wallet of one of its active keys), or one
   * that signed fillerConsentMessage for this quote and maker. An award names its filler, and
   * a stranger's address there would only waste the taker's exclusive window.
   */
  private async assertFillerConsents(quoteId: string, maker: Address, filler: Address, organizationId: string | null, signature: `0x${string}` | undefined) {
    if (filler === maker) return;
    if (organizationId && (await this.repo.isOrganizationWallet(organizationId, filler))) return;
    await assertFillerConsent(quoteId, maker, filler, signature);
  }

  /**
   * A bid can win the exclusive window, so it binds like an exclusive fill: the maker's
   * organization must not be blocked for fading (shared/dutch/dutch-fades.ts), and the maker must
   * hold the fill bond of the request's premium token (shared/bonds, fails closed).
   */
  private async assertMayWin(q: QuoteRow, d: DutchColumns, scope: FadeScope & { maker: Address }): Promise<void> {
    await assertNotFaded(this.deps.db, scope, this.fadePolicy(), this.clock());
    await this.assertRoomAndBond({ db: this.deps.db, oneConnection: false }, q, d, scope);
  }

  private fadePolicy(): FadePolicy {
    const c = this.deps.config;
    return { limit: c.DUTCH_FADE_LIMIT, windowSeconds: c.DUTCH_FADE_WINDOW, cooldownSeconds: c.DUTCH_FADE_COOLDOWN };
  }

  private unfillablePolicy(): UnfillablePolicy {
    const c = this.deps.config;
    return { limit: c.DUTCH_TAKER_UNFILLABLE_LIMIT, windowSeconds: c.DUTCH_TAKER_UNFILLABLE_WINDOW, cooldownSeconds: c.DUTCH_TAKER_UNFILLABLE_COOLDOWN };
  }

  /**
   * What one more right needs beyond not being blocked: room under the fade limit once every open
   * right of the organization is counted, and a fill bond not already reserved by the wallet's
   * live rights. Run before the bid is stored and again under the maker's lock (`db` the
   * transaction, `oneConnection`: its reads run in turn), so concurrent bids cannot share one
   * bond or one place under the limit.
   */
  private async assertRoomAndBond(
    on: { db: Queryable; oneConnection: boolean },
    q: QuoteRow,
    d: DutchColumns,
    scope: FadeScope & { maker: Address },
    fixed?: { minimums: Awaited<ReturnType<NetworksService['bondRequirements']>>; dir: ChainDirectory | null | undefined },
  ): Promise<void> {
    const { db, oneConnection } = on;
    await assertRoomForRight(db, scope, this.fadePolicy(), this.clock(), q.id);
    const premium = (d.dutch_request as { dutch_premium: { token: string } }).dutch_premium.token;
    const dir = fixed ? fixed.dir : await this.deps.pairs.get(q.chain_id);
    const networks = fixed ? { bondRequirements: async () => fixed.minimums } : this.networks;
    await new FillBondCheck({ db, networks, oneConnection }).check(q.chain_id, scope.maker, [premium], dir?.tokens ?? new Map(), { exceptQuote: q.id });
  }

  /**
   * A request naming a fill authority (`required_authority`) is filled only by callers that
   * authority allows (the mothership asks IFillAuthority.isAllowedFiller at fill time), so a
   * bid whose filler it does not allow could never use its award: 403 before anything is
   * stored, and the award only ever names a filler the authority accepted. Asked outside the
   * quote's lock: a chain read must not hold the row. No authority: nothing to ask.
   */
  private async assertAllowedFiller(q: QuoteRow, maker: Address, filler: Address): Promise<void> {
    const d = await this.repo.find(q.id);
    const authority = getAddress(String(d?.dutch_request.required_authority ?? zeroAddress));
    if (!d || authority === zeroAddress) return;
    const net = await this.authorityNetwork(q.chain_id);
    // Both the maker and the filler: the authority vouches for who commits, not only for who sends the transaction.
    // The filler first (it is the maker's own wallet unless the bid names another), then a maker that is not its filler.
    for (const [who, field] of [
      [filler, 'filler'],
      [maker, 'maker'],
    ] as const) {
      if (field === 'maker' && filler === maker) break;
      const allowed = await this.authorities.isAllowedFiller(net, authority, who).catch((err: unknown) => this.unreachable(q.chain_id, err));
      if (!allowed) {
        throw new ForbiddenError(
          `the request's fill authority ${authority} does not allow ${who} (${field === 'maker' ? 'the bidding wallet' : 'the filler'}) to fill it (IFillAuthority.isAllowedFiller): bid from an allowed wallet and name an allowed filler`,
          'filler_not_allowed',
          [{ path: field, message: `is not allowed by the fill authority ${authority}` }],
        );
      }
    }
  }

  /** On create: a non-zero `required_authority` must be a contract on this chain that answers IFillAuthority.isAllowedFiller. */
  private async assertFillAuthority(dir: ChainDirectory, authority: Address): Promise<void> {
    const chainId = dir.network.chain_id;
    const probe = await this.authorities.probe(await this.authorityNetwork(chainId), authority).catch((err: unknown) => this.unreachable(chainId, err));
    if (probe === 'no_code') {
      throw ValidationError.field(
        'dutch_request.required_authority',
        `${authority} has no code on chain ${chainId}: must be an IFillAuthority contract (or the zero address for none)`,
      );
    }
    if (probe === 'not_fill_authority') {
      throw ValidationError.field(
        'dutch_request.required_authority',
        `${authority} does not answer isAllowedFiller(address) on chain ${chainId}: must be an IFillAuthority contract (or the zero address for none)`,
      );
    }
  }

  private async authorityNetwork(chainId: number): Promise<FillAuthorityNetwork> {
    const dir = await this.deps.pairs.get(chainId);
    const rpcUrl = dir?.network.rpc_urls.find((u) => u.startsWith('http://') || u.startsWith('https://'));
    if (!rpcUrl) throw new ServiceUnavailableError(`chain ${chainId} has no HTTP RPC to ask its fill authority`, 'rpc_unavailable', 5);
    return { chainId, rpcUrl };
  }

  private unreachable(chainId: number, err: unknown): never {
    this.deps.logger.warn({ chain_id: chainId, err: (err as Error).message }, 'the fill authority could not be asked');
    throw new ServiceUnavailableError(`cannot ask the request's fill authority: chain ${chainId} RPC unreachable`, 'rpc_unavailable', 5);
  }

  private assertCompeting(q: QuoteRow, d: Awaited<ReturnType<DutchRepository['find']>>): asserts d is DutchColumns {
    if (!d) throw new ConflictError(`quote ${q.id} is not a Dutch auction: post a signed package offer to POST /api/quote/${q.id}`, 'not_dutch');
    if (q.state !== 'open') throw new ConflictError(`quote ${q.id} is ${q.state}; bids are closed`, `quote_${q.state}`);
    if (d.dutch_phase !== 'competing' || new Date(d.compete_ends_at).getTime() <= this.clock()) {
      throw new ConflictError(`the competition of quote ${q.id} ended at ${new Date(d.compete_ends_at).toISOString()}; bids are closed`, 'competition_over');
    }
  }

  /** A maker's Dutch fades (its credential's organization's): GET /api/me's `dutch_fades`. */
  async fades(scope: FadeScope): Promise<FadeStatus> {
    const c = this.deps.config;
    return fadeStatus(
      this.deps.db,
      scope,
      { limit: c.DUTCH_FADE_LIMIT, windowSeconds: c.DUTCH_FADE_WINDOW, cooldownSeconds: c.DUTCH_FADE_COOLDOWN },
      this.clock(),
    );
  }

  /** The taker's poll of a Dutch quote: its phase, deadlines, request and award, and the bids (the taker's side of each). */
  async pollView(base: { quote: { id: string } }) {
    const id = base.quote.id;
    const [q, d, legs] = await Promise.all([this.quotes.findQuote(id), this.repo.find(id), this.quotes.legs(id)]);
    if (!q || !d) return null;
    const bids = await this.repo.bidsBestFirst(id, q.polarity === 'b_is_buy' ? 'buy' : 'sell');
    return { quote: takerDutchView(q, legs, d), bids: bids.map((b) => takerBidView(q, b)) };
  }
}
