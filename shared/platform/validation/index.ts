export * from './primitives';
export * from './integer-bounds';
export * from './fields';
export { parseOrThrow } from './parse';
