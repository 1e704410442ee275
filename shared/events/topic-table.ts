import type { z } from 'zod';
import type { StreamKind } from '../platform/stream-tokens';
import {
  dutchAwardPayload,
  dutchBidPayload,
  dutchFadePayload,
  exclusiveFillPayload,
  exploreClobEventPayload,
  exploreClobSnapshotPayload,
  exploreClobTransferPayload,
  exploreLoanPayload,
  rfqOfferPayload,
  rfqOfferTakerPayload,
  rfqRequestPayload,
  rfqRequestTakerPayload,
  rfqResultPayload,
  rfqResultTakerPayload,
} from './event-payloads';
import { comingSoon, holdsStreamToken, registeredForChain, thatMakerOnly, type Authorize } from './topic-join';
import { addressNamed, chainNamed, tokenNamed, type AddressParam, type ChainParam, type TokenParam, type TopicName } from './topic-names';

/**
 * Every socket topic kind, declared once (the spec's Events table). The socket tier parses
 * names, authorises joins and decides replay from here; publishers build topics and are held
 * to each kind's events from here; docs/SOCKETS.md lists what is here (a test compares them).
 * Adding a topic is one entry (see "Adding a topic" in docs/SOCKETS.md).
 */
interface TopicSpec<P extends object, A, H> {
  /** `live`: joinable and publishable. `planned`: listed by the spec as coming soon, recognised and refused. */
  status: 'live' | 'planned';
  /** How clients write the name, how it parses, and the key its events live under. */
  name: TopicName<P, A, H>;
  /** Who may join (topic-join.ts). */
  authorize: Authorize<P>;
  /**
   * A join without `last_seq` replays the topic from its first event rather than starting
   * live: a private topic exists for its one client, who must miss nothing published before
   * the join (a taker joining just after creating a quote; docs/SOCKETS.md, "Ordering and replay").
   */
  replayFromStart: boolean;
  /** The stream-token kind whose token names the topic (a single-use, token-keyed topic); null for shared topics. */
  streamKind: StreamKind | null;
  /**
   * The topic's own log holds only its snapshot; what follows is relayed by the socket tier from
   * a feed topic published to once per event for every token that follows it (a relay anchor,
   * shared/platform/event-bus/relay-anchor.ts; docs/SOCKETS.md, "Relayed topics").
   */
  relayed: boolean;
  /** Event name -> payload schema (event-payloads.ts): the only events publishers may send here. */
  events: { readonly [event: string]: z.ZodType };
}

/** An entry of one of the three name shapes; its name and its authorize rule must agree on the parameter. */
export type AnyTopicSpec = TopicSpec<ChainParam, number, number> | TopicSpec<AddressParam, string, string> | TopicSpec<TokenParam, string, string>;

export const TOPIC_TABLE = {
  quotes_requests: {
    status: 'live',
    name: chainNamed('quotes', 'requests'),
    authorize: registeredForChain,
    replayFromStart: false,
    streamKind: null,
    relayed: false,
    events: { rfq_request: rfqRequestPayload },
  },
  rfq_maker: {
    status: 'live',
    name: addressNamed('rfq_maker'),
    authorize: thatMakerOnly,
    replayFromStart: false,
    streamKind: null,
    relayed: false,
    events: {
      rfq_request: rfqRequestPayload,
      rfq_offer: rfqOfferPayload,
      rfq_result: rfqResultPayload,
      dutch_bid: dutchBidPayload,
      dutch_award: dutchAwardPayload,
      exclusive_fill_issued: exclusiveFillPayload,
      exclusive_fill_used: exclusiveFillPayload,
      exclusive_fill_expired: exclusiveFillPayload,
      dutch_fade: dutchFadePayload,
    },
  },
  rfq_stream: {
    status: 'live',
    name: tokenNamed('rfq_stream'),
    authorize: holdsStreamToken,
    replayFromStart: true,
    streamKind: 'rfq',
    relayed: false,
    events: { rfq_request: rfqRequestTakerPayload, rfq_offer: rfqOfferTakerPayload, rfq_result: rfqResultTakerPayload },
  },
  explore_clob_stream: {
    status: 'live',
    name: tokenNamed('explore_clob_stream'),
    authorize: holdsStreamToken,
    replayFromStart: true,
    streamKind: 'explore_clob',
    relayed: true,
    events: {
      explore_clob_snapshot: exploreClobSnapshotPayload,
      explore_clob_event: exploreClobEventPayload,
      explore_clob_transfer: exploreClobTransferPayload,
    },
  },
  explore_loan_stream: {
    status: 'live',
    name: tokenNamed('explore_loan_stream'),
    authorize: holdsStreamToken,
    replayFromStart: true,
    streamKind: 'explore_loan',
    relayed: true,
    events: { explore_loan_snapshot: exploreLoanPayload, explore_loan_event: exploreLoanPayload },
  },
  margin_requests: {
    status: 'planned',
    name: chainNamed('margin', 'requests'),
    authorize: comingSoon,
    replayFromStart: false,
    streamKind: null,
    relayed: false,
    events: {},
  },
  margin_lender: {
    status: 'planned',
    name: addressNamed('margin_lender'),
    authorize: comingSoon,
    replayFromStart: false,
    streamKind: null,
    relayed: false,
    events: {},
  },
  margin_rfq_stream: {
    status: 'planned',
    name: tokenNamed('margin_rfq_stream'),
    authorize: comingSoon,
    replayFromStart: true,
    streamKind: null,
    relayed: false,
    events: {},
  },
} as const satisfies Record<string, AnyTopicSpec>;
