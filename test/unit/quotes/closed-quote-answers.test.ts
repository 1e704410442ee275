import { quoteSpecs } from '../../../api/routes/quote.http';
import { QUOTE_STATES } from '../../../wire/src/quote.wire';

/**
 * A maker that offers or bids on a quote no longer open is told why: `409 quote_<state>`
 * (shared/quotes/offer.service.ts, shared/dutch/dutch.service.ts). Each route must declare that
 * answer for every state a quote closes into, or the answer breaks its spec the first time a
 * maker meets the state (docs/ARCHITECTURE.md, "Add a quote state").
 */
const CLOSED_STATES = QUOTE_STATES.filter((s) => s !== 'open');

describe.each(['submitOffer', 'submitDutchBid'] as const)('%s on a closed quote', (route) => {
  const declared = quoteSpecs[route].errors.filter((e) => e.status === 409).map((e) => e.code);

  it.each(CLOSED_STATES)('declares 409 quote_%s', (state) => {
    expect(declared).toContain(`quote_${state}`);
  });
});
