export { NetworksService, networkChangeChannel } from './networks.service';
export type { NetworkView, TokenView, ChallengePublicConfig, NetworkLookup } from './networks.service';
export { networkInputSchema, settingSchemas, isSettingKey, SETTING_SUMMARIES } from './networks.schemas';
export type { NetworkInput, SettingKey, SettingValue } from './networks.schemas';
export { developmentDashboardToken, registeredServiceSigner, registeredSessionSecret } from './service-signer-check';
export { NetworkEntity, SettingEntity, TokenEntity } from './networks.entities';
