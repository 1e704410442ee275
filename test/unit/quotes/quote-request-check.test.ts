import fc from 'fast-check';
import { AppError } from '../../../shared/platform/errors';
import { errorBody } from '../../../shared/platform/http/error-handler';
import { parseQuoteRequest, parseQuoteRequestBySchema, type QuoteRequest } from '../../../shared/quotes/quote-request';
import { acceptedQuoteRequest } from '../../../shared/quotes/quote-request-check';
import { parsedBodies } from '../../fuzz/http-values';
import { EXPIRY, NOW, OTHER_PAIR, PAIR, rawIntent } from '../protocol/helpers';

/**
 * The create body's fast check (shared/quotes/quote-request-check.ts) against its schema, on the
 * HTTP fuzz's corpus (test/fuzz/http-values.ts: valid bodies mutated field by field, junk, JSON
 * text broken on the wire), drawn from the run's seed: the check accepts exactly the bodies the
 * schema accepts, with the same result, and a refused body gets the schema's 400, byte for byte.
 */

const MAX_EXPIRES_IN = 3_600;
const LIMITS = { now: NOW, maxExpiresIn: MAX_EXPIRES_IN };
const RUNS = 5_000;
const TAKER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** Valid bodies in the forms a client may send: the mutations of each walk both sides of every field's edge. */
const TEMPLATES: Record<string, unknown>[] = [
  // The benchmark's butterfly.
  {
    chain_id: 31337,
    taker_address: TAKER,
    polarity: 'b_is_buy',
    referrer: `0x${'0'.repeat(40)}`,
    expires_in: 300,
    intents: [
      rawIntent({ strike_wad: '2500000000000000000000' }),
      rawIntent({ structure: 1, strike_wad: '3000000000000000000000', amount: '2000000000000000000' }),
      rawIntent({ strike_wad: '3500000000000000000000' }),
    ],
  },
  // Spellings: upper-case names and letters, timestamps as strings, a European leg, lower-case addresses, null referrer and dutch_request.
  {
    chain_id: 1,
    taker_address: TAKER.toLowerCase(),
    polarity: 'a_is_buy',
    referrer: null,
    expires_in: MAX_EXPIRES_IN,
    offer_formats: 'legByLegOnly',
    dutch_request: null,
    intents: [
      rawIntent({ option_type: 'PUT', structure: 'B', expiry_timestamp: String(EXPIRY), start_exercise_timestamp: String(EXPIRY) }),
      rawIntent({ option_type: 1, structure: '0', pair6909_contract: PAIR.toUpperCase().replace('0X', '0x') }),
    ],
  },
  // A window that ends exactly at expiry, one leg, a referrer, every offer format.
  {
    chain_id: 2_147_483_647,
    taker_address: OTHER_PAIR,
    polarity: 'b_is_buy',
    referrer: OTHER_PAIR.toLowerCase(),
    expires_in: 60,
    offer_formats: 'package_only',
    intents: [rawIntent({ expiry_timestamp: NOW + 60, strike_wad: (2n ** 144n - 1n).toString(), extra_leg_field: 'dropped' })],
  },
  {
    chain_id: 31337,
    taker_address: TAKER,
    polarity: 'b_is_buy',
    expires_in: 1,
    offer_formats: 'dutch_only',
    intents: Array.from({ length: 8 }, () => rawIntent({ option_type: 'Call', structure: 'a', expiry_timestamp: NOW + 1 })),
  },
];

type Outcome = { ok: true; value: QuoteRequest } | { ok: false; body: string };

/** What a create would answer for `body`: the parsed request, or its 400 body as sent. */
function outcome(parse: () => QuoteRequest): Outcome {
  try {
    return { ok: true, value: parse() };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { ok: false, body: JSON.stringify(errorBody(err, 'request-id')) };
  }
}

/** Bodies as Express hands them over: the fuzz's JSON texts that parse. */
const bodies = parsedBodies(TEMPLATES);

describe('the quote create body: fast check against the schema', () => {
  it('accepts every template (the corpus starts from valid bodies)', () => {
    for (const t of TEMPLATES) expect(acceptedQuoteRequest(t, NOW, MAX_EXPIRES_IN)).toEqual(parseQuoteRequestBySchema(t, LIMITS));
  });

  it('accepts and refuses the same fuzz bodies, with the same result and the same 400 body', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(bodies, (body) => {
        const bySchema = outcome(() => parseQuoteRequestBySchema(body, LIMITS));
        const fast = acceptedQuoteRequest(body, NOW, MAX_EXPIRES_IN);
        if (bySchema.ok) {
          accepted++;
          expect(fast).toEqual(bySchema.value);
        } else {
          refused++;
          expect(fast).toBeUndefined();
        }
        // What the create path runs: the same answer either way, a refusal's body byte for byte.
        expect(outcome(() => parseQuoteRequest(body, LIMITS))).toEqual(bySchema);
      }),
      { numRuns: RUNS },
    );
    // Both sides of the contract were exercised, not one.
    expect(accepted).toBeGreaterThan(RUNS / 20);
    expect(refused).toBeGreaterThan(RUNS / 20);
  });

  it('lets a __proto__ key through as the schema does (it is not an unknown field to zod), reading nothing of it', () => {
    const body = JSON.parse(`{"__proto__": {"venue": "x", "polarity": "b_is_buy"}, ${JSON.stringify(TEMPLATES[0]).slice(1)}`) as Record<string, unknown>;
    expect(Object.keys(body)).toContain('__proto__');
    const bySchema = outcome(() => parseQuoteRequestBySchema(body, LIMITS));
    expect(bySchema.ok).toBe(true);
    expect(acceptedQuoteRequest(body, NOW, MAX_EXPIRES_IN)).toEqual(bySchema.ok ? bySchema.value : null);
    expect(outcome(() => parseQuoteRequest(body, LIMITS))).toEqual(bySchema);
  });

  it.each([
    ['a window outliving the options', { expires_in: 61, intents: [rawIntent({ expiry_timestamp: NOW + 60 })] }],
    ['an expiry now', { intents: [rawIntent({ expiry_timestamp: NOW })] }],
    ['a start neither 0 nor the expiry', { intents: [rawIntent({ start_exercise_timestamp: 5 })] }],
    ['two pairs', { intents: [rawIntent(), rawIntent({ pair6909_contract: OTHER_PAIR })] }],
    ['two expiries', { intents: [rawIntent(), rawIntent({ expiry_timestamp: EXPIRY + 1 })] }],
    ['nine legs', { intents: Array.from({ length: 9 }, () => rawIntent()) }],
    ['an unknown field', { venue: 'x' }],
    ['a Dutch request', { dutch_request: {} }],
    ['a window past the limit', { expires_in: MAX_EXPIRES_IN + 1 }],
    ['a zero strike', { intents: [rawIntent({ strike_wad: '0' })] }],
    ['a strike past uint144', { intents: [rawIntent({ strike_wad: (2n ** 144n).toString() })] }],
    ['a numeric amount', { intents: [rawIntent({ amount: 1 })] }],
    ['a chain id as a string', { chain_id: '31337' }],
    ['an upper-case polarity', { polarity: 'B_IS_BUY' }],
  ])('refuses %s as the schema does', (_name, over) => {
    const body = { ...TEMPLATES[0], ...over };
    expect(acceptedQuoteRequest(body, NOW, MAX_EXPIRES_IN)).toBeUndefined();
    const bySchema = outcome(() => parseQuoteRequestBySchema(body, LIMITS));
    expect(bySchema.ok).toBe(false);
    expect(outcome(() => parseQuoteRequest(body, LIMITS))).toEqual(bySchema);
  });
});
