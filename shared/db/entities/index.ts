import { NetworkEntity, SettingEntity, TokenEntity } from './registry.entities';

export { NetworkEntity, SettingEntity, TokenEntity };

/**
 * Every entity the data source knows. Each concern keeps its entities in its own
 * `<concern>.entities.ts` file beside this one and adds its list here.
 */
export const allEntities: Function[] = [NetworkEntity, TokenEntity, SettingEntity];
