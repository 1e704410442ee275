/**
 * What the indexer reports about its chain providers and its standing audit, as stored in its
 * status row (`indexer_status.provider`, `.audit`) and served by `GET /api/indexer/status`.
 * Declared here, below both the indexer that writes them and the API that reads them.
 */

/** Every way a JSON-RPC provider fails that the indexer tells apart (docs/INDEXER.md, "Providers"). */
export const PROVIDER_FAILURE_CLASSES = [
  'rate_limited',
  'server_error',
  'timeout',
  'invalid_body',
  'range_refused',
  'incomplete_answer',
  'lagging_backend',
  'unreachable',
  'rejected',
] as const;
export type ProviderFailureClass = (typeof PROVIDER_FAILURE_CLASSES)[number];

export type FailureCounts = Partial<Record<ProviderFailureClass, number>>;

/** One RPC URL, by its place in the networks table's `rpc_urls` (never the URL: providers put keys in them). */
export interface ProviderUrlState {
  url_index: number;
  state: 'serving' | 'sitting_out';
  /** When a URL sitting out is tried again (ISO time); null while serving. */
  back_at: string | null;
  failures_in_a_row: number;
  requests: number;
  failures: FailureCounts;
}

export interface ProviderState {
  urls: ProviderUrlState[];
  /** Failures of the last minute by class, over every URL. */
  last_minute: FailureCounts;
}

export interface AuditState {
  enabled: boolean;
  depth_blocks: number;
  blocks_per_minute: number;
  /** The next block the sweep reads; null between sweeps. */
  next_block: number | null;
  /** Full sweeps finished since the indexer process started. */
  passes: number;
  last_pass_at: string | null;
  blocks_checked: number;
  differences_total: number;
  last_difference: { at: string; from_block: number; missing: number; unexpected: number; resync_request: number } | null;
}
