import type { z } from 'zod';
import { competingWire, fillableWire, makerBidWire, takerBidWire, takerDutchQuoteWire, winnerAwardWire } from '../../../wire/src/dutch.wire';
import { TOPIC_TABLE } from '../../../shared/events/topic-table';
import { exclusiveFillEventWire } from '../../../wire/src/order.wire';
import { makerQuoteView, makerResultView, offerView, takerQuoteView, takerResultView } from '../../../shared/quotes/quote.views';
import {
  makerQuoteWire,
  makerResultWire,
  offerWire,
  QUOTE_STATES,
  reopenedResultWire,
  takerQuoteWire,
  takerResultWire,
  type QuoteState,
} from '../../../wire/src/quote.wire';
import type { OfferRow, QuoteLegRow, QuoteRow } from '../../../shared/quotes/quote.types';

type AnyObject = z.ZodObject<z.ZodRawShape>;

/**
 * Each quote event takes several forms (a standard or a Dutch quote, competing or fillable, an
 * outcome or a reorg), each a strict schema of wire/src/quote.wire.ts or
 * wire/src/dutch.wire.ts that its view is typed from. The topic table documents one object
 * per event and topic: every form's fields must be in it, or /api/asyncapi.json hides a field.
 */
const FORMS: [topic: keyof typeof TOPIC_TABLE, event: string, forms: AnyObject[]][] = [
  ['quotes_requests', 'rfq_request', [makerQuoteWire, competingWire, fillableWire]],
  ['rfq_maker', 'rfq_request', [makerQuoteWire, competingWire, fillableWire]],
  ['rfq_stream', 'rfq_request', [takerQuoteWire, takerDutchQuoteWire]],
  ['rfq_maker', 'rfq_offer', [offerWire]],
  ['rfq_stream', 'rfq_offer', [offerWire, takerBidWire]],
  ['rfq_maker', 'rfq_result', [makerResultWire, reopenedResultWire]],
  ['rfq_stream', 'rfq_result', [takerResultWire, reopenedResultWire]],
  ['rfq_maker', 'dutch_bid', [makerBidWire]],
  ['rfq_maker', 'dutch_award', [winnerAwardWire]],
  ['rfq_maker', 'exclusive_fill_issued', [exclusiveFillEventWire]],
  ['rfq_maker', 'exclusive_fill_used', [exclusiveFillEventWire]],
  ['rfq_maker', 'exclusive_fill_expired', [exclusiveFillEventWire]],
];

const documented = (topic: keyof typeof TOPIC_TABLE, event: string) => (TOPIC_TABLE[topic].events as Record<string, AnyObject>)[event];

const TAKER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const quote = (state: QuoteState): QuoteRow => ({
  id: '0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b',
  chain_id: 31337,
  state,
  offer_format: 'package_only',
  polarity: 'b_is_buy',
  strategy: 'call_spread',
  taker_address: TAKER,
  referrer: '0x0000000000000000000000000000000000000000',
  taker_salt: `0x${'ab'.repeat(32)}`,
  taker_address_hash: `0x${'cd'.repeat(32)}`,
  directions: [0, 1],
  pair_contract: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
  expiry_timestamp: 1924992000,
  stream_token_hash: 'f'.repeat(64),
  expires_at: new Date('2030-01-01T00:01:00Z'),
  created_at: new Date('2030-01-01T00:00:00Z'),
  closed_at: state === 'open' ? null : new Date('2030-01-01T00:00:30Z'),
  fill_tx_hash: state === 'filled' ? `0x${'12'.repeat(32)}` : null,
});
const legs: QuoteLegRow[] = [0, 1].map((idx) => ({
  idx,
  option_type: 0,
  structure: 0,
  direction: idx as 0 | 1,
  strike_wad: `${2500 + idx * 500}000000000000000000000`,
  amount: '1000000000000000000',
  start_exercise_timestamp: 0,
  expiry_timestamp: 1924992000,
}));
const offer: OfferRow = {
  id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  quote_id: '0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b',
  chain_id: 31337,
  maker: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  offer_type: 'package',
  package_premium: '125000000',
  maker_pays_taker: false,
  premium_token: '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853',
  nonce: '1',
  deadline: 1924905600,
  signature: `0x${'11'.repeat(64)}1b`,
  digest: `0x${'22'.repeat(32)}`,
  created_at: new Date('2030-01-01T00:00:10Z'),
};

describe("a quote event's forms and the topic table", () => {
  it.each(FORMS)('%s %s documents every field of each of its forms, and requires only what all share', (topic, event, forms) => {
    const schema = documented(topic, event);
    const properties = Object.keys(schema.shape);
    for (const form of forms) expect(Object.keys(form.shape).filter((k) => !properties.includes(k))).toEqual([]);
    const required = Object.entries(schema.shape)
      .filter(([, s]) => !(s as z.ZodType).safeParse(undefined).success)
      .map(([k]) => k);
    for (const form of forms) expect(required.filter((k) => !Object.keys(form.shape).includes(k))).toEqual([]);
  });

  it("no maker topic documents the taker's address, referrer, salt or fill transaction", () => {
    for (const [topic, event] of FORMS.filter(([t]) => t !== 'rfq_stream')) {
      const properties = Object.keys(documented(topic, event).shape);
      expect([topic, event, properties.filter((k) => ['taker_address', 'referrer', 'taker_salt', 'fill_tx_hash'].includes(k))]).toEqual([topic, event, []]);
    }
  });

  it.each(QUOTE_STATES)('the views of a quote in state %s parse with their strict wire schemas and their topics', (state) => {
    const q = quote(state);
    const cases: [unknown, AnyObject, AnyObject][] = [
      [makerQuoteView(q, legs), makerQuoteWire, documented('rfq_maker', 'rfq_request')],
      [takerQuoteView(q, legs), takerQuoteWire, documented('rfq_stream', 'rfq_request')],
      [offerView(offer), offerWire, documented('rfq_stream', 'rfq_offer')],
      [makerResultView(q), makerResultWire, documented('rfq_maker', 'rfq_result')],
      [takerResultView(q), takerResultWire, documented('rfq_stream', 'rfq_result')],
    ];
    for (const [view, form, topic] of cases) {
      expect(form.safeParse(view).error?.issues ?? []).toEqual([]);
      expect(topic.safeParse(view).error?.issues ?? []).toEqual([]);
    }
  });
});
