import { NetworkEntity, SettingEntity, TokenEntity } from './registry.entities';
import { ApiKeyEntity, OrganizationEntity, OrganizationMemberEntity } from './identity.entities';

export { NetworkEntity, SettingEntity, TokenEntity };
export { ApiKeyEntity, OrganizationEntity, OrganizationMemberEntity };

/**
 * Every entity the data source knows. Each concern keeps its entities in its own
 * `<concern>.entities.ts` file beside this one and adds its list here.
 */
export const allEntities: Function[] = [NetworkEntity, TokenEntity, SettingEntity, OrganizationEntity, OrganizationMemberEntity, ApiKeyEntity];
