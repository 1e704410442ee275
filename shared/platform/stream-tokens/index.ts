export { StreamTokens, hashStreamToken, STREAM_KINDS, STREAM_TOKEN_PATTERN } from './stream-tokens';
export type { StreamKind, StreamTokenMeta, StreamTokenRecord } from './stream-tokens';
