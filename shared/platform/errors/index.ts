export * from './app-error';
export * from './zod-problems';
