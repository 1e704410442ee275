export { StreamTokens, hashStreamToken, STREAM_KINDS, STREAM_TOKEN_PATTERN } from './stream-tokens';
export type { StreamKind, StreamTokenMeta, StreamTokenRecord } from './stream-tokens';
export { SignedStreamTokens, streamTokenKeys, SIGNED_TOKEN_LENGTH } from './signed-stream-tokens';
export type { StreamTokenClaim, StreamTokenKeys } from './signed-stream-tokens';
