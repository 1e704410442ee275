// Field schemas and parsing live in the wire package, which the client shares.
export * from '../../../wire/src/validation';
