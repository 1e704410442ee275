import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { GuardedPgClient } from './guarded-pg-client';
import { loadMigrations } from './migrations';

/** A TypeORM entity class (decorated, constructed by TypeORM). */
export type EntityClass = abstract new (...args: never[]) => object;

export interface DataSourceOptions {
  /** The entity classes, supplied by the caller: platform code knows no domain. */
  entities: EntityClass[];
  url: string;
  poolSize?: number;
  connectTimeoutMs?: number;
  applicationName?: string;
  /** Server-side statement_timeout of every pooled session; 0 or unset = none. */
  statementTimeoutMs?: number;
}

/** The TypeORM data source over `pg`. `synchronize` stays off: only migrations change the schema. */
export function createDataSource(opts: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: opts.url,
    entities: opts.entities,
    migrations: loadMigrations(),
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: {
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
      application_name: opts.applicationName ?? 'options-rfq',
      Client: GuardedPgClient,
      // Sent as a startup parameter, so it is each session's default: RESET returns to it.
      ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    },
  });
}

/** Closes the pool if it was opened. */
export async function closeDataSource(ds: DataSource): Promise<void> {
  if (ds.isInitialized) await ds.destroy();
}
