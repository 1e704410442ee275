/** The wire formats live with the payload schemas that use them (wire/src/formats.ts); routes import them from here. */
export * from '../../wire/src/formats';
