import type { Request } from 'express';
import { NotImplementedError, UnauthorizedError } from '../../shared/platform/errors';
import { callerScope } from '../auth';
import type { ApiContext } from '../context';
import { Reply, type RouteHandlers } from '../contract/route-contract';
import type { quoteContracts } from './quote.contract';

/** The wallet an authenticated maker signs with: its SIWE address, or its API key's bot wallet. */
function makerWallet(req: Request): `0x${string}` {
  const p = req.principal;
  if (p && (p.kind === 'siwe' || p.kind === 'maker_key')) return p.address;
  throw new UnauthorizedError('maker rights required', 'maker_rights_required');
}

/** Standard RFQ: create, poll, and maker package offers. The quote and offer bodies are parsed by shared/quotes. */
export function quoteHandlers(ctx: ApiContext): RouteHandlers<typeof quoteContracts> {
  const { quotes, offers } = ctx.services;
  return {
    createQuote: async ({ headers, body }, req) => {
      const out = await quotes.create(body, { idempotencyKey: headers['idempotency-key'], caller: callerScope(req) });
      return new Reply(out.status, out.body, out.replayed ? { 'Idempotent-Replayed': 'true' } : {});
    },
    pollQuote: async ({ params, query, headers }) => quotes.poll(params.id, query.stream_token ?? headers['x-quote-stream-token']),
    submitOffer: async ({ params, body }, req) => ({ offer: await offers.submit(params.id, body, makerWallet(req)) }),
    submitDutchBid: async () => {
      throw new NotImplementedError('Dutch bids need a Dutch quote, and the Dutch flow is not available yet', 'dutch_not_available');
    },
  };
}
