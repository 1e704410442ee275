import type { Request } from 'express';
import { UnauthorizedError, ValidationError } from '../../shared/platform/errors';

/** Shortest Idempotency-Key an anonymous quote create may use (a UUIDv4 is 36). */
const ANONYMOUS_KEY_MIN_LENGTH = 32;
import { errorBody } from '../../shared/platform/http/error-handler';
import { isDutchRequest, type Bidder } from '../../shared/dutch';
import { callerScope } from '../auth';
import type { ApiContext } from '../context';
import { dryRunBodyRefusal } from '../http/dry-run-body-refusal';
import { Reply, type RouteHandlers } from '../http/route-spec';
import type { quoteSpecs } from './quote.http';

/** The wallet an authenticated maker signs with: its SIWE address, or its API key's bot wallet. */
function makerWallet(req: Request): `0x${string}` {
  const p = req.principal;
  if (p && (p.kind === 'siwe' || p.kind === 'maker_key')) return p.address;
  throw new UnauthorizedError('maker rights required', 'maker_rights_required');
}

/**
 * Who bids, and for which organization: a maker key acts for the organization that issued it
 * (never a membership another organization could add), a SIWE wallet for its own membership.
 */
async function bidder(ctx: ApiContext, req: Request): Promise<Bidder> {
  const p = req.principal;
  if (p?.kind === 'maker_key') return { wallet: p.address, organizationId: p.organizationId, unverifiedKey: p.verified ? undefined : p.keyId };
  const wallet = makerWallet(req);
  return { wallet, organizationId: (await ctx.services.identity.orgs.membership(wallet, 'maker'))?.organizationId ?? null };
}

/** Quotes: create (standard or Dutch), poll, maker package offers and Dutch bids, and their dry-run. The quote, offer and bid bodies are parsed by shared/quotes and shared/dutch. */
export function quoteHandlers(ctx: ApiContext): RouteHandlers<typeof quoteSpecs> {
  const { quotes, offers, dutch, offerDryRun } = ctx.services;
  // What the operator's quote-rate panels read: quotes and offers accepted, replays not counted.
  const created = ctx.metrics.counter('rfq_quotes_created_total', 'Quotes created, by kind (rfq, dutch); idempotent replays not counted', ['kind']);
  const offered = ctx.metrics.counter('rfq_offers_submitted_total', 'Maker package offers and Dutch bids accepted, by kind (offer, dutch_bid)', ['kind']);
  return {
    createQuote: async ({ headers, body }, req) => {
      const key = headers['idempotency-key'];
      // Without a credential the key is the only proof that a replay (stream token and salt
      // included) goes to whoever made the first request: it must be too long to guess or share by chance.
      if (key !== undefined && !req.principal && key.length < ANONYMOUS_KEY_MIN_LENGTH) {
        throw ValidationError.field(
          'Idempotency-Key',
          `without a bearer, must be at least ${ANONYMOUS_KEY_MIN_LENGTH} characters of a random value (a UUIDv4, or 16+ random bytes in hex): a replay returns the quote's stream token`,
        );
      }
      const opts = { idempotencyKey: key, caller: callerScope(req) };
      const kind = isDutchRequest(body) ? 'dutch' : 'rfq';
      // A delegate's taker organization answers for the Dutch windows its users make impossible to fill.
      const takerOrganizationId = req.principal?.kind === 'delegate' ? req.principal.organizationId : null;
      const out = kind === 'dutch' ? await dutch.create(body, { ...opts, takerOrganizationId }) : await quotes.create(body, opts);
      if (!out.replayed) created.inc({ kind });
      return new Reply(out.status, out.body, out.replayed ? { 'Idempotent-Replayed': 'true' } : {});
    },
    pollQuote: async ({ params, query, headers }) => {
      const out = await quotes.poll(params.id, query.stream_token ?? headers['x-quote-stream-token']);
      return out.quote.offer_format === 'dutch_only' ? { ...out, ...(await dutch.pollView(out)) } : out;
    },
    submitOffer: async ({ params, body }, req) => {
      const offer = await offers.submit(params.id, body, makerWallet(req));
      offered.inc({ kind: 'offer' });
      return { offer };
    },
    submitDutchBid: async ({ params, body }, req) => {
      const bid = await dutch.bid(params.id, body, await bidder(ctx, req));
      offered.inc({ kind: 'dutch_bid' });
      return new Reply(201, { bid });
    },
    submitOfferDryRun: async ({ params, body }, req) => {
      const out = await offerDryRun.run(params.id, body, await bidder(ctx, req), dryRunBodyRefusal(req));
      const common = { dry_run: true as const, quote_id: out.quoteId, kind: out.kind };
      if (!out.refusal) return { ...common, would: 'accept' as const, status: 201 as const, error: null };
      return { ...common, would: 'refuse' as const, status: out.refusal.status, error: errorBody(out.refusal, req.id) };
    },
  };
}
