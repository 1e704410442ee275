import type { DataSource } from 'typeorm';
import { createDataSource as createPlatformDataSource, type DataSourceOptions, type EntityClass } from './platform/db/data-source';
import { ApiKeyEntity, OrganizationEntity, OrganizationMemberEntity } from './identity';
import { NetworkEntity, SettingEntity, TokenEntity } from './networks';

/**
 * Every TypeORM entity, gathered from the domains that own them (`<domain>/<domain>.entities.ts`).
 * The platform's data source takes its entity list as an argument so that it imports no domain;
 * a new entity is added to its domain's file and to this list.
 */
export const ALL_ENTITIES: EntityClass[] = [NetworkEntity, TokenEntity, SettingEntity, OrganizationEntity, OrganizationMemberEntity, ApiKeyEntity];

/** The data source every role, test and tool opens: the platform's TypeORM setup with every entity. */
export function createDataSource(opts: Omit<DataSourceOptions, 'entities'>): DataSource {
  return createPlatformDataSource({ ...opts, entities: ALL_ENTITIES });
}
