export * from './wire-formats';
export * from './sql-literals';
