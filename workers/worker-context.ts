import type { ServiceDeps } from '../shared/platform/runtime';
import { EventPublisher } from '../shared/events';
import { PairDirectory, QuoteNotifier, type InterestedMakers } from '../shared/quotes';
import { DutchAuctioneer, resultMakers, TakerFundsCheck } from '../shared/dutch';
import { Erc20FundsReader } from '../shared/chain/erc20-funds';
import { serviceSigner } from '../shared/chain/service-signer';
import { roleTracer } from '../shared/platform/tracing';

/** What the workers role is started with. */
export type WorkerDeps = ServiceDeps;

/** What job handlers may use. */
export interface WorkerContext extends WorkerDeps {
  events: EventPublisher;
  notifier: QuoteNotifier;
  /** Advances Dutch auctions; signs awards with the service key. */
  dutch: DutchAuctioneer;
}

/** Longest wait for the chain when a Dutch taker's funds are read at its window's end. */
const TAKER_FUNDS_RPC_TIMEOUT_MS = 5000;

export function buildWorkerContext(deps: WorkerDeps, interestedMakers: InterestedMakers): WorkerContext {
  const events = new EventPublisher({ redis: deps.redis, config: deps.config, metrics: deps.metrics, tracer: roleTracer(deps.tracing, 'workers') });
  const pairs = new PairDirectory(deps.db, deps.config.REGISTRY_CACHE_MS);
  const dutch = new DutchAuctioneer({
    db: deps.db,
    events,
    logger: deps.logger,
    interestedMakers,
    pairs,
    queue: deps.queue,
    signer: deps.serviceSigner ?? serviceSigner(deps.config, []),
    skewMs: deps.config.QUOTE_EXPIRY_SKEW_MS,
    takerFunds: new TakerFundsCheck({ db: deps.db, pairs, logger: deps.logger, reader: new Erc20FundsReader(TAKER_FUNDS_RPC_TIMEOUT_MS) }),
  });
  return {
    ...deps,
    events,
    notifier: new QuoteNotifier({
      db: deps.db,
      events,
      logger: deps.logger,
      interestedMakers,
      resultMakers: resultMakers(deps.db),
      streamGraceSeconds: deps.config.QUOTE_STREAM_GRACE_SECONDS,
    }),
    dutch,
  };
}
