// The error classes a parse throws live in the wire package, which the client shares.
export * from '../../../wire/src/errors/app-error';
export * from '../../../wire/src/errors/zod-problems';
export * from './dependency-errors';
