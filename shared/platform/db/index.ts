export { closeDataSource, type DataSourceOptions } from './data-source';
export { ensureDatabase, databaseName, maintenanceUrl } from './ensure-database';
export { loadMigrations, MIGRATIONS_DIR } from './migrations';
export { runMigrationsLocked, MIGRATION_LOCK_NAME } from './migration-lock';
export type { DataSource, EntityManager } from 'typeorm';
export { idsWhere, independentReads, pastGrace, updatedRows, type Queryable, type ReadResults } from './queries';
export { ReadReplicas, type ReadReplicasOptions, type ReplicaState } from './read-replicas';
export { sqlLiterals, type SqlLiterals } from './sql-literals';
export { columnDefinitions, columnNames, type JsonColumns } from './json-rows';
