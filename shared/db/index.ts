export { createDataSource, closeDataSource } from './data-source';
export { ensureDatabase, databaseName, maintenanceUrl } from './ensure-database';
export { loadMigrations, MIGRATIONS_DIR } from './migrations';
export * from './entities';
export type { DataSource, EntityManager } from 'typeorm';
