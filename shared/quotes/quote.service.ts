import { randomUUID } from 'node:crypto';
import { toHex } from 'viem';
import type { DataSource, EntityManager } from 'typeorm';
import type { Config } from '../platform/config';
import { NotFoundError, UnauthorizedError, ValidationError } from '../platform/errors';
import { IdempotencyService } from '../platform/idempotency';
import type { JobQueue } from '../platform/queue';
import type { Logger } from '../platform/logging';
import { directions as deriveDirections, recognizeStrategy, takerAddressHashFast } from '../protocol';
import { PairDirectory, type ChainDirectory } from './pair-directory';
import { quoteAnnounceJob } from './quote.jobs';
import { QuoteRepository, type NewQuote, type NewQuoteRow } from './quote.repository';
import { GroupCommit } from '../platform/db/group-commit';
import { parseQuoteRequest, type QuoteRequest } from './quote-request';
import type { QuoteLegRow, QuoteRow } from './quote.types';
import { offerView, takerQuoteView, type OfferView, type TakerQuoteView } from './quote.views';
import { pooledRandomBytes, secretMatches } from '../platform/secrets';
import { hashStreamToken, type SignedStreamTokens } from '../platform/stream-tokens';
import { step } from '../platform/tracing';

export interface CreatedQuote {
  quote: TakerQuoteView;
  stream_token: string;
  topic: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The taker's side of standard RFQ: create a quote, poll it. Workers do the publishing. */
export class QuoteService {
  readonly repo: QuoteRepository;
  private readonly idempotency: IdempotencyService;
  /** Concurrent creates commit together; each 201 still follows its own quote's commit. */
  private readonly inserts: GroupCommit<NewQuote, Date>;

  constructor(
    private readonly deps: { config: Config; db: DataSource; queue: JobQueue; logger: Logger; pairs: PairDirectory; signedTokens: SignedStreamTokens },
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new QuoteRepository(deps.db);
    this.idempotency = new IdempotencyService(deps.db);
    this.inserts = new GroupCommit({ many: (xs) => this.repo.insertQuotes(xs), one: (x) => this.repo.insertQuote(null, x.row, x.legs) });
  }

  /**
   * Validates, stores quote and legs atomically (one statement), then enqueues its announce (its
   * expiry is the workers' clock). `caller` (a credential, else the client IP) scopes the Idempotency-Key: only the
   * caller that created a quote can replay its response, which carries the stream token and salt.
   */
  async create(body: unknown, opts: { idempotencyKey?: string; caller: string }): Promise<{ status: number; body: CreatedQuote; replayed: boolean }> {
    if (opts.idempotencyKey !== undefined) IdempotencyService.checkKey(opts.idempotencyKey);
    const nowMs = this.clock();
    const req = parseQuoteRequest(body, {
      now: Math.floor(nowMs / 1000),
      maxExpiresIn: this.deps.config.QUOTE_MAX_EXPIRES_IN,
    });
    const dir = await step('quote.pairs', () => this.deps.pairs.get(req.chain_id));
    if (!dir) throw ValidationError.field('chain_id', `unknown chain ${req.chain_id}: see GET /api/networks`);
    checkPair(req, dir);

    // The token opens rfq_stream:<token> on the socket tier until a while after the window closes,
    // so the taker still hears the result; polling checks the hash stored on the quote instead.
    // Signed, not recorded: minting it is an HMAC, with no round trip before the commit.
    const work = async (m: EntityManager | null) => {
      const id = randomUUID();
      const token = this.deps.signedTokens.mint('rfq', id, nowMs + (req.expires_in + this.deps.config.QUOTE_STREAM_GRACE_SECONDS) * 1000);
      return this.insert(m, req, nowMs, id, token);
    };
    const out = opts.idempotencyKey
      ? await this.idempotency.run('quote.create', opts.caller, opts.idempotencyKey, body, work)
      : { ...(await work(null)), replayed: false };
    // Not a step: the jobs' spans stay children of the request's, as the traces document them.
    if (!out.replayed) await this.schedule(out.body.quote.id);
    return out;
  }

  /** `m` is the idempotency transaction, or null: the quote's statement commits on its own, grouped with concurrent creates. */
  private async insert(m: EntityManager | null, req: QuoteRequest, nowMs: number, id: string, token: string): Promise<{ status: number; body: CreatedQuote }> {
    const salt = toHex(pooledRandomBytes(32));
    const dirs = deriveDirections(
      req.polarity,
      req.intents.map((i) => i.structure),
    );
    const legs: QuoteLegRow[] = req.intents.map((i, idx) => ({
      idx,
      option_type: i.option_type,
      structure: i.structure,
      direction: dirs[idx],
      strike_wad: i.strike_wad.toString(),
      amount: i.amount.toString(),
      start_exercise_timestamp: i.start_exercise_timestamp,
      expiry_timestamp: i.expiry_timestamp,
    }));
    const row: NewQuoteRow = {
      id,
      chain_id: req.chain_id,
      offer_format: 'package_only',
      polarity: req.polarity,
      strategy: recognizeStrategy(req.intents),
      taker_address: req.taker_address,
      referrer: req.referrer,
      taker_salt: salt,
      taker_address_hash: takerAddressHashFast(req.taker_address, salt, dirs, req.referrer),
      directions: dirs,
      pair_contract: req.intents[0].pair6909_contract,
      expiry_timestamp: req.intents[0].expiry_timestamp,
      stream_token_hash: hashStreamToken(token),
      expires_at: new Date(nowMs + req.expires_in * 1000),
    };
    const createdAt = await step('quote.insert', () => (m ? this.repo.insertQuote(m, row, legs) : this.inserts.write({ row, legs })));
    const quote: QuoteRow = { ...row, state: 'open', created_at: createdAt, closed_at: null, fill_tx_hash: null };
    return { status: 201, body: { quote: takerQuoteView(quote, legs), stream_token: token, topic: `rfq_stream:${token}` } };
  }

  /**
   * Announce now. The expiry needs no job: the workers' expiry clock closes the quote at the
   * window's end from its row (workers/quotes/quote-expiry-clock.ts). A failure here leaves a
   * committed quote that the sweeper announces later, so the create still succeeds.
   */
  private async schedule(quoteId: string): Promise<void> {
    try {
      await this.deps.queue.enqueue(quoteAnnounceJob, { quote_id: quoteId });
    } catch (err) {
      this.deps.logger.error({ quote_id: quoteId, err: (err as Error).message }, 'enqueue failed; the sweeper will announce this quote');
    }
  }

  /** The taker's poll: the quote and its offers, best first, for the holder of the stream token. */
  async poll(id: string, streamToken: string | undefined): Promise<{ quote: TakerQuoteView; offers: OfferView[] }> {
    if (!streamToken) throw new UnauthorizedError('stream token required: pass ?stream_token= or X-Quote-Stream-Token', 'stream_token_required');
    const q = UUID.test(id) ? await this.repo.findQuote(id) : null;
    if (!q) throw new NotFoundError(`quote ${id} not found`, 'quote_not_found');
    if (!secretMatches(streamToken, q.stream_token_hash)) throw new UnauthorizedError('invalid stream token for this quote', 'invalid_stream_token');
    const [legs, offers] = await Promise.all([this.repo.legs(id), this.repo.offers(id)]);
    return { quote: takerQuoteView(q, legs), offers: offers.map(offerView) };
  }
}

/** The legs' contract must be a known pair of the chain; a token address gets an error that says so. */
function checkPair(req: QuoteRequest, dir: ChainDirectory): void {
  const pair = req.intents[0].pair6909_contract;
  const token = dir.tokens.get(pair);
  if (token) {
    throw ValidationError.field(
      'intents[0].pair6909_contract',
      `${pair} is the ${token} token, not a pair: pass the pair (CLOB) contract of the token0/token1/premium-token triple (GET /api/networks or /api/indexer/cores)`,
    );
  }
  if (!dir.pairs.has(pair)) {
    throw ValidationError.field('intents[0].pair6909_contract', `${pair} is not a known pair (CLOB) contract on chain ${req.chain_id}`);
  }
}
