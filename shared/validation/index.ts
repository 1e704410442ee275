export * from './primitives';
export { parseOrThrow } from './parse';
