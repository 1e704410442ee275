export * from './wire-formats';
