export * from './primitives';
export * from './integer-bounds';
export { parseOrThrow } from './parse';
