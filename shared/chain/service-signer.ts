import { keccak256, stringToHex, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { ConfigError, isLoopbackHost, type Config } from '../platform/config';

/**
 * Public and therefore worthless: the key a fresh checkout signs with, so `npm start` and the
 * tests run without configuration. The devchain registers its address on the mothership.
 */
export const DEVELOPMENT_SERVICE_SIGNER_KEY: Hex = keccak256(stringToHex('options-rfq development service signer: do not deploy'));

export const DEVELOPMENT_SERVICE_SIGNER: PrivateKeyAccount = privateKeyToAccount(DEVELOPMENT_SERVICE_SIGNER_KEY);

/**
 * The account the service signs Dutch awards and exclusive fills with (docs/PROTOCOL.md,
 * "Service signer"). Without SERVICE_SIGNER_KEY it is the development key, which anyone can
 * read here, so it is refused in production and on a server reachable from other machines.
 * Only the roles that sign call this; the key itself never leaves the returned account.
 */
export function serviceSigner(config: Pick<Config, 'SERVICE_SIGNER_KEY' | 'NODE_ENV' | 'HOST'>): PrivateKeyAccount {
  if (config.SERVICE_SIGNER_KEY) return privateKeyToAccount(config.SERVICE_SIGNER_KEY as Hex);
  if (config.NODE_ENV === 'production') {
    throw new ConfigError([{ key: 'SERVICE_SIGNER_KEY', message: 'required when NODE_ENV=production (0x and 64 hex digits)' }]);
  }
  if (!isLoopbackHost(config.HOST)) {
    throw new ConfigError([
      {
        key: 'SERVICE_SIGNER_KEY',
        message: `required when HOST ${config.HOST} is not a loopback address: the development key is public, so anyone could sign awards and exclusive fills`,
      },
    ]);
  }
  return DEVELOPMENT_SERVICE_SIGNER;
}
