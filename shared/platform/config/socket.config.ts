import { envInt } from './schema-helpers';

/**
 * The socket tier (Phoenix channels over ws) and the event log behind it. History bounds are
 * read by publishers (how much to keep) and by socket replicas (how far a replay may reach),
 * so every role must run with the same values.
 */
export const socketEnv = {
  /** Events kept per topic for replay: the last N ... */
  SOCKET_HISTORY_MAX_EVENTS: envInt(1000, 1, 100_000),
  /** ... and none older than this. An idle topic's history disappears after this long. */
  SOCKET_HISTORY_MAX_AGE_SECONDS: envInt(600, 1, 7 * 86400),
  /**
   * How long an idle topic keeps its seq counter. Longer than the history, so that a client
   * holding an old seq learns `recovered: false` instead of seeing seq start again at 1.
   */
  SOCKET_SEQ_TTL_SECONDS: envInt(7 * 86400, 60, 365 * 86400),
  /** Channels one connection may have joined (or be joining) at once; Phoenix's default. */
  SOCKET_MAX_CHANNELS: envInt(100, 1, 10_000),
  /**
   * A connection that sends nothing (not even the client's heartbeat, every 30 s by default
   * in phoenix.js) for this long is closed. Phoenix's own default.
   */
  SOCKET_IDLE_TIMEOUT_MS: envInt(60_000, 1_000, 3_600_000),
  /** How often idle connections and expired credentials are looked for. */
  SOCKET_SWEEP_INTERVAL_MS: envInt(1_000, 50, 60_000),
  /** Largest inbound frame; a larger one closes the connection with 1009. */
  SOCKET_MAX_FRAME_BYTES: envInt(64 * 1024, 1024, 16 * 1024 * 1024),
  /** Malformed messages a connection may send before it is closed with 1008. */
  SOCKET_MAX_BAD_FRAMES: envInt(100, 1, 1_000_000),
  /** Unsent bytes a slow client may accumulate before it is disconnected (1008). */
  SOCKET_MAX_BUFFERED_BYTES: envInt(4 * 1024 * 1024, 64 * 1024, 512 * 1024 * 1024),
  /** Replays (history reads on join) running at once per replica; the rest queue. Bounds reconnect storms. */
  SOCKET_REPLAY_CONCURRENCY: envInt(64, 1, 10_000),
  /** Live events held per joining channel while its replay runs; beyond this the join fails. */
  SOCKET_JOIN_BUFFER_EVENTS: envInt(10_000, 10, 1_000_000),
  /**
   * Extra life of a token-named topic's seq and history after its stream token lapses. Token
   * topics live as long as their token (the quote window plus QUOTE_STREAM_GRACE_SECONDS) and
   * then this long, not SOCKET_SEQ_TTL_SECONDS: nobody can join them once the token is gone.
   */
  SOCKET_TOKEN_TOPIC_GRACE_SECONDS: envInt(60, 1, 86400),
  /** Open connections one replica accepts; past it upgrades are answered 503 (the balancer tries another replica). */
  SOCKET_MAX_CONNECTIONS: envInt(100_000, 1, 10_000_000),
  /** Open connections per client address (IPv6 by /64) on one replica; past it upgrades are answered 429. */
  SOCKET_MAX_CONNECTIONS_PER_IP: envInt(100, 1, 10_000_000),
  /** Joins a connection may send in a burst (its bucket's size): a client joining all its channels at connect fits. */
  SOCKET_JOIN_BURST: envInt(100, 1, 100_000),
  /** Joins per minute the bucket refills with; a join with an empty bucket is refused and the connection kept. */
  SOCKET_JOIN_RATE_PER_MINUTE: envInt(600, 1, 1_000_000),
  /** Joins refused for rate in a row (no join let through between them) before the connection is closed 1008. */
  SOCKET_MAX_JOIN_REFUSALS: envInt(50, 1, 1_000_000),
  /** How long a join's credential lookup (API key, delegate, maker rights) is reused, in ms; 0 = always look up. */
  SOCKET_CREDENTIAL_CACHE_MS: envInt(5_000, 0, 60_000),
  /** Credential lookups remembered at once per replica (oldest dropped first). */
  SOCKET_CREDENTIAL_CACHE_MAX_ENTRIES: envInt(10_000, 1, 1_000_000),
  /** Bytes of history one connection may replay (joins with last_seq, token streams from seq 1) per window. */
  SOCKET_REPLAY_BUDGET_BYTES: envInt(8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  /** The window of SOCKET_REPLAY_BUDGET_BYTES, in ms. */
  SOCKET_REPLAY_BUDGET_WINDOW_MS: envInt(60_000, 1_000, 3_600_000),
  /**
   * How often key-authenticated channels (maker keys, delegates of taker keys) are checked
   * against the database, and registrations made with removed keys dropped. Bounds how long a
   * revocation whose announcement a replica missed can go unnoticed.
   */
  SOCKET_KEY_RECHECK_INTERVAL_MS: envInt(30_000, 50, 3_600_000),
  /** Lifetime of a POST /api/pubsub/{premium,freemium} registration; re-registering refreshes it. */
  PUBSUB_REGISTRATION_TTL_SECONDS: envInt(30 * 86400, 60, 365 * 86400),
};
