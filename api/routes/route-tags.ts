import recorded from './api-version.json';

/**
 * The version the OpenAPI and AsyncAPI documents state: the one api-version.json records with
 * their fingerprint. Any change of a route spec or a topic's payloads raises it, by `npm run
 * api:fingerprint` (docs/API.md, "The API version"); a test fails until then.
 */
export const API_VERSION: string = recorded.version;

/** What each tag of the OpenAPI document groups. */
export const ROUTE_TAGS: Record<string, string> = {
  'sign-in': 'Sign-In with Ethereum (EIP-4361) and the session it yields.',
  quotes: 'Options RFQ: takers create and poll quotes, makers post signed package offers.',
  orders: 'CLOB orders, and exclusive fills makers take over them (backed by bonds).',
  pubsub: "Registration for a chain's request feed on the socket.",
  'maker organization': 'Maker bot keys and the admin role; each change is signed by the admin wallet.',
  'taker organization': 'Taker API keys and short-lived delegates for end-user wallets.',
  'public data': 'Networks, settings and portfolio snapshots; no credential needed.',
  indexer: 'What the chain indexer has seen, and its health.',
  explore: 'Gated analytics of CLOBs (and loans): books, activity, fills, summaries and live streams; see the Explore gate.',
  'explore: loans':
    'Loans of the reference lending market, for risk analysts: totals, health ranking, activity, one loan, a live stream. Behind the Explore gate (action explore-loan).',
  operations: 'Probes, metrics and this document.',
};
