/** The version the OpenAPI document states; raise it with every change of a route spec. */
export const API_VERSION = '0.5.0';

/** What each tag of the OpenAPI document groups. */
export const ROUTE_TAGS: Record<string, string> = {
  'sign-in': 'Sign-In with Ethereum (EIP-4361) and the session it yields.',
  quotes: 'Options RFQ: takers create and poll quotes, makers post signed package offers.',
  orders: 'CLOB orders, and exclusive fills makers take over them (backed by bonds).',
  pubsub: "Registration for a chain's request feed on the socket.",
  'maker organization': 'Maker bot keys and the admin role; each change is signed by the admin wallet.',
  'taker organization': 'Taker API keys and short-lived delegates for end-user wallets.',
  'public data': 'Registry, settings and portfolio snapshots; no credential needed.',
  indexer: 'What the chain indexer has seen, and its health.',
  explore: 'Gated analytics of CLOBs (and loans): books, activity, fills, summaries and live streams; see the Explore gate.',
  'explore: loans':
    'Loans of the reference lending market, for risk analysts: totals, health ranking, activity, one loan, a live stream. Behind the Explore gate (action explore-loan).',
  operations: 'Probes, metrics and this document.',
};
