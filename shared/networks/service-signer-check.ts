import type { PrivateKeyAccount } from 'viem/accounts';
import type { DataSource } from 'typeorm';
import { serviceSigner } from '../chain/service-signer';
import type { Config } from '../platform/config';
import { NetworksService } from './networks.service';

/**
 * The service signer for the networks registered now (enabled or not: one can be re-enabled),
 * built at the start of a process whose roles sign. Only the networks' RPC URLs are inspected;
 * none is contacted. A ConfigError (exit 78) when the configuration has no key and the public
 * development key may not sign for them (developmentKeyProblem).
 */
export async function registeredServiceSigner(
  config: Pick<Config, 'SERVICE_SIGNER_KEY' | 'NODE_ENV' | 'DEVCHAIN'>,
  db: DataSource,
): Promise<PrivateKeyAccount> {
  const networks = await new NetworksService(db).allNetworks();
  return serviceSigner(config, networks);
}
