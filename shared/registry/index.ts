export { RegistryService } from './registry.service';
export type { NetworkView, TokenView, ChallengePublicConfig } from './registry.service';
export { networkInputSchema, settingSchemas, isSettingKey } from './registry.schemas';
export type { NetworkInput, SettingKey, SettingValue } from './registry.schemas';
export { registeredServiceSigner } from './service-signer-check';
