import type { ServiceDeps } from '../shared/platform/runtime';
import { OfferService, PairDirectory, QuoteService } from '../shared/quotes';
import { DutchService, OfferDryRun } from '../shared/dutch';
import { NetworksService } from '../shared/networks';
import { dropKeyRegistrations, PubsubRegistrations } from '../shared/events';
import { SignedStreamTokens, StreamTokens, streamTokenKeys } from '../shared/platform/stream-tokens';
import { IdentityService } from '../shared/identity';
import { IndexerStatusService, PortfolioService } from '../shared/indexed';
import { ClobExploreService, ExploreStreamMinter } from '../shared/explore';
import { LoanService } from '../shared/loans';
import { ExclusiveFillService, OrderService } from '../shared/orders';
import { serviceSigner } from '../shared/chain/service-signer';
import type { PrivateKeyAccount } from 'viem/accounts';
import { GateMemory } from './gate-memory';

/** What the API needs from the outside world; tests build one per database. It hands work to the workers through `queue` and never publishes to sockets itself. */
export interface ApiDeps extends ServiceDeps {
  /**
   * Every BullMQ queue of the job catalog (workers/job-catalog.ts `QUEUE_NAMES`), which the api
   * role may not import: the entry point hands them over. With them the app exports the queues'
   * depths on /metrics and can serve the operator's queue dashboard (`OPS_DASHBOARD_TOKEN`).
   */
  queueNames?: readonly string[];
}

/** The services routes call, built once per app from its deps. */
export interface ApiServices {
  networks: NetworksService;
  pubsub: PubsubRegistrations;
  identity: IdentityService;
  pairs: PairDirectory;
  quotes: QuoteService;
  offers: OfferService;
  dutch: DutchService;
  /** POST /api/quote/:id/dry-run: the checks of the offer or bid route, nothing stored. */
  offerDryRun: OfferDryRun;
  indexerStatus: IndexerStatusService;
  portfolio: PortfolioService;
  clobExplore: ClobExploreService;
  /** Mints explore stream tokens (any feed) and asks a worker to open them. */
  exploreStreams: ExploreStreamMinter;
  loans: LoanService;
  orders: OrderService;
  exclusiveFills: ExclusiveFillService;
}

export interface ApiContext extends ApiDeps {
  services: ApiServices;
  /**
   * The gate's key and network checks from memory, kept fresh by revocation and network notices.
   * Serves from memory only once started (bin/main.ts starts it with the api role); until then
   * every check asks the database.
   */
  gateMemory: GateMemory;
}

export function buildContext(deps: ApiDeps): ApiContext {
  const pairs = new PairDirectory(deps.db, deps.config.REGISTRY_CACHE_MS);
  const streamTokens = new StreamTokens(deps.redis, deps.config.REDIS_PREFIX);
  const gateMemory = new GateMemory(deps);
  const networks = new NetworksService(deps.db, gateMemory.networks);
  // bin/main.ts builds the signer at start (and refuses to start without one); an embedder that
  // passes none gets one built from the configuration alone, on first use.
  let signer: PrivateKeyAccount | undefined = deps.serviceSigner;
  const signerOnce = () => (signer ??= serviceSigner(deps.config, []));
  // Indexed and Explore data tolerate a bounded lag: a replica serves them when there is one.
  // Everything a caller has just written (quotes, orders, Dutch, keys) is read from the primary.
  const readDb = deps.readDb ?? deps.db;
  const offers = new OfferService({ ...deps, pairs });
  const dutch = new DutchService({ ...deps, pairs, streamTokens });
  return {
    ...deps,
    gateMemory,
    services: {
      networks,
      pubsub: new PubsubRegistrations(deps.redis, deps.config, deps.db),
      identity: new IdentityService({ ...deps, dropKeyRegistrations, takerKeys: gateMemory.takerKeys }),
      pairs,
      quotes: new QuoteService({ ...deps, pairs, signedTokens: new SignedStreamTokens(streamTokenKeys(deps.config)) }),
      offers,
      dutch,
      offerDryRun: new OfferDryRun(deps.db, offers, dutch),
      indexerStatus: new IndexerStatusService(readDb, deps.config.INDEXER_STATUS_STALE_MS),
      portfolio: new PortfolioService(readDb),
      clobExplore: new ClobExploreService(readDb),
      exploreStreams: new ExploreStreamMinter(deps),
      loans: new LoanService({ db: readDb, networks: gateMemory.networks }),
      orders: new OrderService({
        ...deps,
        pairs,
        maxHorizonSeconds: deps.config.ORDER_MAX_HORIZON_SECONDS,
        caps: { perOwner: deps.config.ORDER_UNCONFIRMED_PER_OWNER, perIp: deps.config.ORDER_UNCONFIRMED_PER_IP },
      }),
      exclusiveFills: new ExclusiveFillService({
        ...deps,
        pairs,
        networks,
        signer: signerOnce,
        ttlSeconds: deps.config.EXCLUSIVE_FILL_TTL_SECONDS,
        maxOrders: deps.config.EXCLUSIVE_FILL_MAX_ORDERS,
        fades: { limit: deps.config.DUTCH_FADE_LIMIT, windowSeconds: deps.config.DUTCH_FADE_WINDOW, cooldownSeconds: deps.config.DUTCH_FADE_COOLDOWN },
        retakeCooldownSeconds: deps.config.EXCLUSIVE_FILL_RETAKE_COOLDOWN,
      }),
    },
  };
}
