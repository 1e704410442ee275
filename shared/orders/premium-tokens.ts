import { getAddress, type Address } from 'viem';
import { optionPairAbi } from '../chain/abis';
import { localPublicClient } from '../chain/clients';
import type { ChainDirectory } from '../quotes';
import type { OrderRepository } from './order.repository';

/**
 * The premium token of a pair (what an exclusive fill's bond is posted in). A pair's tokens are
 * immutable, so an answer is kept for the process's life: the indexer's record of the pair
 * first, else one read of the pair's `premiumToken()` on the network's RPC.
 */
export class PremiumTokens {
  private readonly known = new Map<string, Promise<Address>>();

  constructor(private readonly repo: OrderRepository) {}

  of(dir: ChainDirectory, pair: Address): Promise<Address> {
    const key = `${dir.network.chain_id}:${pair}`;
    let hit = this.known.get(key);
    if (!hit) {
      hit = this.load(dir, pair);
      this.known.set(key, hit);
      hit.catch(() => this.known.delete(key));
    }
    return hit;
  }

  private async load(dir: ChainDirectory, pair: Address): Promise<Address> {
    const indexed = await this.repo.premiumTokenOf(dir.network.chain_id, pair);
    if (indexed) return getAddress(indexed);
    const client = localPublicClient(dir.network.rpc_urls[0]!, dir.network.chain_id);
    return getAddress(await client.readContract({ address: pair, abi: optionPairAbi, functionName: 'premiumToken' }));
  }
}
