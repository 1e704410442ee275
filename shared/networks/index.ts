export { NetworksService } from './networks.service';
export type { NetworkView, TokenView, ChallengePublicConfig } from './networks.service';
export { networkInputSchema, settingSchemas, isSettingKey } from './networks.schemas';
export type { NetworkInput, SettingKey, SettingValue } from './networks.schemas';
export { registeredServiceSigner, registeredSessionSecret } from './service-signer-check';
