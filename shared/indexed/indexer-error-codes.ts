/**
 * Why a network's tailer last failed, as the indexer records it in `indexer_status.error_code`.
 * The API shows only these codes and fixed words for them: the raw RPC or driver text stays in
 * the indexer's logs (and the operator's `ops indexer:status`), never in a public answer.
 */
export const INDEXER_ERROR_CODES = {
  rpc_unavailable: 'the RPC does not answer',
  rpc_rejected: 'the RPC refuses the requests the indexer makes',
  chain_inconsistent: 'the RPC gives answers from different forks; retrying',
  cursor_conflict: 'another indexer process writes this network',
  chain_mismatch: 'the RPC serves another chain than the networks table names',
  invariant_broken: 'the stored block window is inconsistent',
  reorg_too_deep: 'the chain reorganised deeper than INDEXER_REORG_MAX_DEPTH',
  database_unavailable: 'the database does not answer',
  internal: 'an unexpected error; see the indexer logs',
} as const;

export type IndexerErrorCode = keyof typeof INDEXER_ERROR_CODES;

export function isIndexerErrorCode(v: unknown): v is IndexerErrorCode {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(INDEXER_ERROR_CODES, v);
}
