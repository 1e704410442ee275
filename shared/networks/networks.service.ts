import type { DataSource } from 'typeorm';
import type { NetworkEntity, TokenEntity } from './networks.entities';
import { BadRequestError, NotFoundError, ValidationError } from '../platform/errors';
import { parseOrThrow } from '../platform/validation';
import { NetworksRepository } from './networks.repository';
import {
  isSettingKey,
  MARGIN_CONTRACT_KEY,
  networkInputSchema,
  SETTING_DEFAULTS,
  settingSchemas,
  type SettingKey,
  type SettingValue,
} from './networks.schemas';

export interface NetworkView {
  chain_id: number;
  name: string;
  rpc_urls: string[];
  contracts: Record<string, string>;
}

export interface TokenView {
  chain_id: number;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
}

export interface ChallengePublicConfig {
  sitekey: string | null;
  enabled: boolean;
}

function networkView(n: NetworkEntity): NetworkView {
  const contracts: Record<string, string> = {};
  for (const key of Object.keys(n.contracts).sort()) {
    if (!MARGIN_CONTRACT_KEY.test(key)) contracts[key] = n.contracts[key];
  }
  return { chain_id: n.chain_id, name: n.name, rpc_urls: n.rpc_urls, contracts };
}

function tokenView(t: TokenEntity): TokenView {
  return { chain_id: t.chain_id, address: t.address, symbol: t.symbol, name: t.name, decimals: t.decimals };
}

/** Where `requireNetwork` finds a network: the API's gate memory (api/gate-memory.ts), or the database each time. */
export interface NetworkLookup {
  network(chainId: number): Promise<NetworkEntity | null>;
}

/**
 * Redis pub/sub channel (under REDIS_PREFIX) on which a change to a network's row is announced as
 * JSON `{chain_id}`, so processes that remember networks drop theirs (ops `network:upsert`).
 */
export function networkChangeChannel(prefix: string): string {
  return `${prefix}networks:changes`;
}

/** Networks, tokens and settings: what the public routes serve and the operator CLI writes. */
export class NetworksService {
  private readonly repo: NetworksRepository;
  private readonly lookup: NetworkLookup;

  constructor(ds: DataSource, lookup?: NetworkLookup) {
    this.repo = new NetworksRepository(ds);
    this.lookup = lookup ?? { network: (chainId) => this.repo.getNetwork(chainId) };
  }

  async networks(): Promise<{ networks: NetworkView[] }> {
    const rows = await this.repo.listNetworks({ enabledOnly: true });
    return { networks: rows.map(networkView) };
  }

  /** An enabled network or a 400 naming `field`; used to validate client-supplied chain ids. */
  async requireNetwork(chainId: number, field = 'chain_id'): Promise<NetworkEntity> {
    const n = await this.lookup.network(chainId);
    if (!n || !n.enabled) throw ValidationError.field(field, `unknown chain ${chainId}: see GET /api/networks`);
    return n;
  }

  async network(chainId: number): Promise<NetworkEntity | null> {
    return this.repo.getNetwork(chainId);
  }

  async allNetworks(): Promise<NetworkEntity[]> {
    return this.repo.listNetworks({ enabledOnly: false });
  }

  /** Every token registered on one chain. */
  async tokensOf(chainId: number): Promise<TokenEntity[]> {
    return this.repo.listTokens({ chain_id: chainId });
  }

  async paymentTokens(): Promise<{ tokens: (TokenView & { faucet: boolean })[] }> {
    const rows = await this.repo.listTokens({ is_payment: true });
    return { tokens: rows.map((t) => ({ ...tokenView(t), faucet: t.is_faucet })) };
  }

  async defaultPremiumTokens(): Promise<{ tokens: TokenView[] }> {
    const rows = await this.repo.listTokens({ is_default_premium: true });
    return { tokens: rows.map(tokenView) };
  }

  async recommendedMinNotional(): Promise<{ min_notional: (TokenView & { amount: string })[] }> {
    const rows = await this.repo.listTokens();
    return {
      min_notional: rows.filter((t) => t.min_notional !== null).map((t) => ({ ...tokenView(t), amount: String(t.min_notional) })),
    };
  }

  async bondRequirements(): Promise<{ tokens: SettingValue<'bond_requirements'> }> {
    return { tokens: await this.setting('bond_requirements') };
  }

  async fillerPageSettings(): Promise<SettingValue<'filler_page'>> {
    return this.setting('filler_page');
  }

  async landingPageSettings(challenge: ChallengePublicConfig): Promise<Record<string, unknown>> {
    const [extra, premium, payment, networks] = await Promise.all([
      this.setting('landing_page'),
      this.defaultPremiumTokens(),
      this.paymentTokens(),
      this.networks(),
    ]);
    return {
      ...extra,
      challenge,
      default_premium_tokens: premium.tokens,
      payment_tokens: payment.tokens,
      networks: networks.networks,
    };
  }

  async setting<K extends SettingKey>(key: K): Promise<SettingValue<K>> {
    const raw = await this.repo.getSetting(key);
    if (raw === undefined) return SETTING_DEFAULTS[key];
    return settingSchemas[key].parse(raw) as SettingValue<K>;
  }

  /** Validates then stores a network file's content. */
  async upsertNetwork(raw: unknown): Promise<NetworkView> {
    const input = parseOrThrow(networkInputSchema, raw);
    await this.repo.upsertNetwork(input);
    const stored = await this.repo.getNetwork(input.chain_id);
    if (!stored) throw new NotFoundError(`network ${input.chain_id} vanished after upsert`);
    return networkView(stored);
  }

  /** Validates a value against its key's schema, then stores it. */
  async setSetting(key: string, raw: unknown): Promise<unknown> {
    if (!isSettingKey(key)) {
      throw new BadRequestError(`unknown setting ${JSON.stringify(key)}; known: ${Object.keys(settingSchemas).join(', ')}`, 'unknown_setting');
    }
    const value = parseOrThrow(settingSchemas[key], raw, key);
    await this.repo.setSetting(key, value);
    return value;
  }
}
