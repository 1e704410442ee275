import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { allEntities } from './entities';
import { GuardedPgClient } from './guarded-pg-client';
import { loadMigrations } from './migrations';

export interface DataSourceOptions {
  url: string;
  poolSize?: number;
  connectTimeoutMs?: number;
  applicationName?: string;
}

/** The TypeORM data source over `pg`. `synchronize` stays off: only migrations change the schema. */
export function createDataSource(opts: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: opts.url,
    entities: allEntities,
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
    },
  });
}

/** Closes the pool if it was opened. */
export async function closeDataSource(ds: DataSource): Promise<void> {
  if (ds.isInitialized) await ds.destroy();
}
