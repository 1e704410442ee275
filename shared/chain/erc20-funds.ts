import type { Address, Chain, PublicClient, Transport } from 'viem';
import { mockErc20Abi } from './abis';
import { localPublicClient } from './clients';

/** Where to read: the network's RPC and chain id. */
export interface FundsNetwork {
  chainId: number;
  rpcUrl: string;
}

/** What an owner holds of an ERC-20 token and lets a spender take, both read at one block. */
export interface Erc20Funds {
  balance: bigint;
  allowance: bigint;
  blockNumber: bigint;
  /** The block's time, unix seconds. */
  blockTimestamp: number;
}

/**
 * Reads an owner's ERC-20 balance and its allowance to a spender (`balanceOf`, `allowance`) at
 * the chain's latest block, both at that same block, with viem. Any failure (an RPC that does
 * not answer within `timeoutMs`, a token that reverts) throws: the caller decides what no
 * answer means.
 */
export class Erc20FundsReader {
  private readonly clients = new Map<string, PublicClient<Transport, Chain>>();

  constructor(private readonly timeoutMs: number) {}

  async read(net: FundsNetwork, token: Address, owner: Address, spender: Address): Promise<Erc20Funds> {
    const client = this.client(net);
    const block = await client.getBlock({ blockTag: 'latest' });
    const at = { address: token, abi: mockErc20Abi, blockNumber: block.number } as const;
    const [balance, allowance] = await Promise.all([
      client.readContract({ ...at, functionName: 'balanceOf', args: [owner] }),
      client.readContract({ ...at, functionName: 'allowance', args: [owner, spender] }),
    ]);
    return { balance, allowance, blockNumber: block.number, blockTimestamp: Number(block.timestamp) };
  }

  private client(net: FundsNetwork): PublicClient<Transport, Chain> {
    const key = `${net.chainId} ${net.rpcUrl}`;
    let c = this.clients.get(key);
    if (!c) {
      c = localPublicClient(net.rpcUrl, net.chainId, { timeoutMs: this.timeoutMs });
      this.clients.set(key, c);
    }
    return c;
  }
}
