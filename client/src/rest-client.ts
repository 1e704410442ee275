import type { LocalAccount } from 'viem/accounts';
import { ApiError, foreignErrorBody } from './api-error';
import type {
  AddMakerKeyRequest,
  ContractAbis,
  CreatedExclusiveFill,
  ExclusiveFillRequest,
  OrderList,
  OrderRequest,
  OrderView,
  CreatedQuote,
  DefaultPremiumTokensResult,
  Delegate,
  ErrorBody,
  LoginNonce,
  LoginResult,
  MakerKeyList,
  MintDelegateRequest,
  PackageOfferRequest,
  NetworksResult,
  NewMakerKey,
  PaymentTokensResult,
  PubsubRegistration,
  QuotePoll,
  QuoteRequest,
  RemovedMakerKey,
  Session,
  SubmittedOffer,
  OfferDryRun,
  DutchBidRequest,
  SubmittedDutchBid,
} from './api.types';
import { signSiwe } from './siwe';
import type { DutchQuoteRequest } from './dutch';

export interface RfqClientOptions {
  /** The service root, e.g. `http://127.0.0.1:8080` (no trailing slash needed). */
  baseUrl: string;
  /** A bearer: a SIWE session token, a maker or taker API key, or a taker delegate. */
  bearer?: string;
  /** Another fetch (a proxy agent, a test recorder); default: the global one. */
  fetch?: typeof fetch;
}

interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * The REST side of the API, one method per route a taker or maker uses. Results are typed by
 * the route specs; any non-2xx answer throws an ApiError carrying the error body.
 */
export class RfqClient {
  readonly baseUrl: string;
  private readonly bearer: string | undefined;
  private readonly fetchImpl: typeof fetch;

  /** A base URL alone, or the full options. */
  constructor(opts: RfqClientOptions | string) {
    const o = typeof opts === 'string' ? { baseUrl: opts } : opts;
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    this.bearer = o.bearer;
    this.fetchImpl = o.fetch ?? fetch;
  }

  /** The Phoenix socket endpoint next to the API (phoenix.js appends `/websocket`). */
  get socketUrl(): string {
    return `${this.baseUrl.replace(/^http/, 'ws')}/socket`;
  }

  /** The bearer this client sends, if any. */
  get credential(): string | undefined {
    return this.bearer;
  }

  /** A client for the same service speaking with another bearer. */
  as(bearer: string): RfqClient {
    return new RfqClient({ baseUrl: this.baseUrl, bearer, fetch: this.fetchImpl });
  }

  // --- sign-in ---------------------------------------------------------------------------

  loginNonce(): Promise<LoginNonce> {
    return this.send('GET', '/api/login/nonce');
  }

  login(body: { message: string; signature: string }): Promise<LoginResult> {
    return this.send('POST', '/api/login', { body });
  }

  /**
   * Sign-In with Ethereum: fetch a nonce, sign the message it dictates, log in. This client is
   * left as it was (one client may sign in many wallets); speak as the wallet with `as(token)`.
   */
  async signIn(account: Pick<LocalAccount, 'address' | 'signMessage'>): Promise<LoginResult> {
    return this.login(await signSiwe(account, await this.loginNonce()));
  }

  me(): Promise<Session> {
    return this.send('GET', '/api/me');
  }

  // --- public data -----------------------------------------------------------------------

  networks(): Promise<NetworksResult> {
    return this.send('GET', '/api/networks');
  }

  paymentTokens(): Promise<PaymentTokensResult> {
    return this.send('GET', '/api/payment-tokens');
  }

  defaultPremiumTokens(): Promise<DefaultPremiumTokensResult> {
    return this.send('GET', '/api/default-premium-tokens');
  }

  /** The reference contracts' ABIs (mothership, option pairs, BondVault, tokens); their addresses are in networks(). */
  abis(): Promise<ContractAbis> {
    return this.send('GET', '/api/abis');
  }

  // --- takers ----------------------------------------------------------------------------

  /** A new RFQ; join `created.topic` right away to hear offers (RfqSocket.subscribe). */
  createQuote(body: QuoteRequest, opts: { idempotencyKey?: string } = {}): Promise<CreatedQuote> {
    return this.send('POST', '/api/quote', { body, headers: opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {} });
  }

  /** A Dutch auction (see signDutchRequest); join `created.topic` to hear bids, phases and the result. */
  createDutchQuote(body: DutchQuoteRequest, opts: { idempotencyKey?: string } = {}): Promise<CreatedQuote> {
    return this.send('POST', '/api/quote', { body, headers: opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {} });
  }

  /** The quote and its offers, best first; the stream token is the credential. */
  pollQuote(quoteId: string, streamToken: string): Promise<QuotePoll> {
    return this.send('GET', `/api/quote/${encodeURIComponent(quoteId)}`, { headers: { 'x-quote-stream-token': streamToken } });
  }

  /** A taker organization's backend (bearer: its API key) mints a delegate for an end-user wallet. */
  mintDelegate(body: MintDelegateRequest): Promise<Delegate> {
    return this.send('POST', '/api/taker/delegate', { body });
  }

  // --- orders ----------------------------------------------------------------------------

  /**
   * Records a CLOB order (optional bearer: with one, destination.from must be its wallet). Place it on chain with the pair's
   * placeIntent(orderIntent(order)). Sign in as the owner to have it listed before placement (`placement: 'recorded_by_owner'`);
   * the very same intent recorded twice answers the first record.
   */
  createOrder(body: OrderRequest): Promise<OrderView> {
    return this.send('POST', '/api/orders', { body });
  }

  getOrder(orderId: string): Promise<OrderView> {
    return this.send('GET', `/api/orders/${encodeURIComponent(orderId)}`);
  }

  /** One page, newest first; pass the answer's next_cursor as `cursor` for the next. */
  listOrders(query: { owner?: string; state?: string; chain_id?: number; cursor?: string; limit?: number } = {}): Promise<OrderList> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return this.send('GET', `/api/orders${qs ? `?${qs}` : ''}`);
  }

  /** The owner records its intent to cancel (bearer: the owner's own SIWE session or its maker key; a taker delegate is refused). */
  cancelOrder(orderId: string): Promise<OrderView> {
    return this.send('POST', `/api/orders/${encodeURIComponent(orderId)}/cancel`);
  }

  /** A maker takes exclusive fill rights over open orders; fill with the pair's fillExclusive(exclusiveFillMessage(fill), fill.signature, intents, reward). */
  createExclusiveFill(body: ExclusiveFillRequest): Promise<CreatedExclusiveFill> {
    return this.send('POST', '/api/exclusive-fill', { body });
  }

  // --- makers ----------------------------------------------------------------------------

  /** Posts a signed package offer (see signPackageOffer). */
  submitOffer(quoteId: string, body: PackageOfferRequest): Promise<SubmittedOffer> {
    return this.send('POST', `/api/quote/${encodeURIComponent(quoteId)}`, { body });
  }

  /**
   * Runs every check the real offer (a package offer's body, standard quote) or Dutch bid (a
   * both-side bid's body, Dutch quote) would face, without storing or publishing anything:
   * `would` is `accept` or `refuse`, with the status and error body the real call would get.
   */
  dryRunOffer(quoteId: string, body: PackageOfferRequest | DutchBidRequest): Promise<OfferDryRun> {
    return this.send('POST', `/api/quote/${encodeURIComponent(quoteId)}/dry-run`, { body });
  }

  /** A both-side bid on a competing Dutch quote; a later bid replaces this maker's earlier one. */
  submitDutchBid(quoteId: string, body: DutchBidRequest): Promise<SubmittedDutchBid> {
    return this.send('POST', `/api/quote/${encodeURIComponent(quoteId)}/offer`, { body });
  }

  registerPremium(chainId: number): Promise<PubsubRegistration> {
    return this.send('POST', '/api/pubsub/premium', { body: { chain_id: chainId } });
  }

  registerFreemium(chainId: number): Promise<PubsubRegistration> {
    return this.send('POST', '/api/pubsub/freemium', { body: { chain_id: chainId } });
  }

  makerKeys(): Promise<MakerKeyList> {
    return this.send('GET', '/api/maker/keys');
  }

  /** Adds a bot key: the admin's signed statement and the bot wallet's consent (docs/AUTH.md). */
  addMakerKey(body: AddMakerKeyRequest): Promise<NewMakerKey> {
    return this.send('POST', '/api/maker/keys', { body });
  }

  removeMakerKey(keyId: string, body: { message: string; signature: string }): Promise<RemovedMakerKey> {
    return this.send('DELETE', `/api/maker/keys/${encodeURIComponent(keyId)}`, { body });
  }

  // ---------------------------------------------------------------------------------------

  /**
   * Any route, for those without a method here (operators' and Explore routes): the result
   * type is the caller's claim, errors are still ApiErrors. `headers` add to or override the bearer.
   */
  call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    return this.send(method, path, { body, headers });
  }

  private async send<T>(method: string, path: string, opts: CallOptions = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (this.bearer) headers.authorization = `Bearer ${this.bearer}`;
    Object.assign(headers, opts.headers);
    const res = await this.fetchImpl(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    if (!res.ok) throw new ApiError(method, path, res.status, parseErrorBody(res.status, text, res.headers.get('x-request-id')));
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

function parseErrorBody(status: number, text: string, requestId: string | null): ErrorBody {
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    if (typeof body.error === 'string' && typeof body.code === 'string' && typeof body.request_id === 'string') return body as ErrorBody;
  } catch {
    // not JSON: fall through to the foreign body
  }
  return foreignErrorBody(status, text, requestId);
}
