export * from './app-error';
export * from './zod-problems';
export * from './dependency-errors';
