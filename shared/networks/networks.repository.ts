import type { DataSource } from 'typeorm';
import { NetworkEntity, SettingEntity, TokenEntity } from './networks.entities';
import type { NetworkInput } from './networks.schemas';

/** Queries of the networks, tokens and settings tables. */
export class NetworksRepository {
  constructor(private readonly ds: DataSource) {}

  listNetworks(opts: { enabledOnly: boolean }): Promise<NetworkEntity[]> {
    return this.ds.getRepository(NetworkEntity).find({
      where: opts.enabledOnly ? { enabled: true } : {},
      order: { chain_id: 'ASC' },
    });
  }

  getNetwork(chainId: number): Promise<NetworkEntity | null> {
    return this.ds.getRepository(NetworkEntity).findOneBy({ chain_id: chainId });
  }

  listTokens(where: Partial<Pick<TokenEntity, 'is_payment' | 'is_default_premium' | 'chain_id'>> = {}): Promise<TokenEntity[]> {
    return this.ds
      .getRepository(TokenEntity)
      .createQueryBuilder('t')
      .innerJoin(NetworkEntity, 'n', 'n.chain_id = t.chain_id AND n.enabled')
      .where(where)
      .orderBy('t.chain_id', 'ASC')
      .addOrderBy('t.symbol', 'ASC')
      .getMany();
  }

  /** Writes a network and replaces its token list, atomically. */
  async upsertNetwork(input: NetworkInput): Promise<void> {
    await this.ds.transaction(async (m) => {
      await m
        .createQueryBuilder()
        .insert()
        .into(NetworkEntity)
        .values({
          chain_id: input.chain_id,
          name: input.name,
          rpc_urls: input.rpc_urls,
          contracts: input.contracts,
          enabled: input.enabled,
          confirmations: input.confirmations,
        })
        .orUpdate(['name', 'rpc_urls', 'contracts', 'enabled', 'confirmations', 'updated_at'], ['chain_id'])
        .execute();
      await m.delete(TokenEntity, { chain_id: input.chain_id });
      if (input.tokens.length > 0) {
        await m.insert(
          TokenEntity,
          input.tokens.map((t) => ({
            chain_id: input.chain_id,
            address: t.address,
            symbol: t.symbol,
            name: t.name,
            decimals: t.decimals,
            is_payment: t.payment,
            is_default_premium: t.default_premium,
            is_faucet: t.faucet,
            min_notional: t.min_notional ?? null,
          })),
        );
      }
    });
  }

  async getSetting(key: string): Promise<unknown | undefined> {
    const row = await this.ds.getRepository(SettingEntity).findOneBy({ key });
    return row?.value;
  }

  async setSetting(key: string, value: unknown): Promise<void> {
    await this.ds
      .createQueryBuilder()
      .insert()
      .into(SettingEntity)
      .values({ key, value: value as object })
      .orUpdate(['value', 'updated_at'], ['key'])
      .execute();
  }
}
