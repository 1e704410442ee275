import { randomBytes } from 'node:crypto';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { DataSource } from 'typeorm';
import { developmentKeyProblem, serviceSigner } from '../chain/service-signer';
import { ConfigError, type Config } from '../platform/config';
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

/**
 * The session (JWT) secret follows the signer rule (docs/SECURITY.md, finding 9b): without
 * JWT_SECRET the public development secret is used only where the development signing key may
 * sign (outside production, DEVCHAIN on, every registered network on a loopback RPC URL). Else,
 * in production, a ConfigError (exit 78); elsewhere a random secret for this process alone
 * (sessions and delegates then do not survive a restart or cross processes). Where the server
 * binds does not matter: a same-host proxy makes a loopback bind public.
 */
export async function registeredSessionSecret(config: Config, db: DataSource): Promise<{ config: Config; random: boolean }> {
  if (config.JWT_SECRET) return { config, random: false };
  const problem = developmentKeyProblem(config, await new NetworksService(db).allNetworks());
  if (!problem) return { config, random: false };
  if (config.NODE_ENV === 'production') {
    throw new ConfigError([{ key: 'JWT_SECRET', message: 'required when NODE_ENV=production (at least 32 characters)' }]);
  }
  return { config: Object.freeze({ ...config, JWT_SECRET: randomBytes(32).toString('base64url') }), random: true };
}

/**
 * The queue dashboard on a development stack: with no OPS_DASHBOARD_TOKEN, a random token of this
 * process where the public development key may sign (the signer rule: outside production, DEVCHAIN
 * on, every registered network on a loopback RPC URL), so whoever tries the service sees the
 * dashboard; the caller prints it once (api/ops/development-dashboard.ts). Anywhere else, and with a
 * token set, the configuration is unchanged: no token, no dashboard.
 */
export async function developmentDashboardToken(config: Config, db: DataSource): Promise<{ config: Config; generated: boolean }> {
  if (config.OPS_DASHBOARD_TOKEN !== undefined) return { config, generated: false };
  if (developmentKeyProblem(config, await new NetworksService(db).allNetworks()) !== null) return { config, generated: false };
  return { config: Object.freeze({ ...config, OPS_DASHBOARD_TOKEN: randomBytes(32).toString('base64url') }), generated: true };
}
