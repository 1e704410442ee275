/** The wire formats live with the payload schemas that use them (shared/platform/wire); routes import them from here. */
export * from '../../shared/platform/wire/wire-formats';
