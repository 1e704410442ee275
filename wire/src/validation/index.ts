export * from './primitives';
export * from './integer-bounds';
export * from './field.schemas';
export * from './cross-field-rules';
export { rebuiltWhenChanged } from './clock-bound-schema';
export { parseOrThrow } from './parse';
