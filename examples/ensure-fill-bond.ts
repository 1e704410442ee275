import { createPublicClient, formatUnits, http, type Address, type Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import type { RfqClient } from '../client/src';
import { bondOf, bondVaultSetup, depositBond } from '../docs/snippets/bond-vault';

/** A wallet's fill bond after `ensureFillBond`: amounts in the premium token's units. */
export interface FillBond {
  /** The token's amount as a person reads it, e.g. `2 USDC`. */
  units: (v: bigint) => string;
  needed: bigint;
  /** What the vault held for the wallet before; `deposited` was added to it. */
  held: bigint;
  deposited: bigint;
  tx?: Hex;
}

/** Polls until the indexer's cursor on `chainId` has reached `block`: the API counts a bond only once it is indexed. */
async function untilIndexed(api: RfqClient, chainId: number, block: bigint, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { networks } = await api.call<{ networks: { chain_id: number; cursor: number | null }[] }>('GET', `/api/indexer/status?chain_id=${chainId}`);
    const cursor = networks.find((n) => n.chain_id === chainId)?.cursor;
    if (cursor !== null && cursor !== undefined && BigInt(cursor) >= block) return;
    if (Date.now() > deadline) throw new Error(`the indexer of chain ${chainId} did not reach block ${block} in time: is the indexer role running?`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Tops the wallet's BondVault bond in the chain's default premium token up to the fill bond
 * GET /api/bond-requirements asks for (a Dutch bid and an exclusive fill each need it: docs/ORDERS.md,
 * docs/DUTCH.md), with `faucet()` first when the test token balance is short, and waits until the
 * indexer has seen the chain up to now, so the API counts the bond from the next request on.
 * A bond already big enough is left as it is: run again, it deposits nothing.
 */
export async function ensureFillBond(api: RfqClient, account: LocalAccount, chainId: number, opts: { timeoutMs?: number } = {}): Promise<FillBond> {
  const premium = (await api.defaultPremiumTokens()).tokens.find((t) => t.chain_id === chainId);
  if (!premium) throw new Error(`chain ${chainId} has no default premium token`);
  const units = (v: bigint) => `${formatUnits(v, premium.decimals)} ${premium.symbol}`;
  const { tokens } = await api.call<{ tokens: Record<string, { fill_bond_amount: string }> }>('GET', '/api/bond-requirements');
  const needed = BigInt(tokens[premium.symbol]?.fill_bond_amount ?? '0');
  const vault = await bondVaultSetup(api, chainId, premium.address as Address);
  const held = await bondOf(vault, account);
  const deposited = held < needed ? needed - held : 0n;
  const tx = deposited > 0n ? await depositBond(vault, account, deposited) : undefined;
  if (needed > 0n) {
    const head = await createPublicClient({ transport: http(vault.rpcUrl) }).getBlockNumber();
    await untilIndexed(api, chainId, head, opts.timeoutMs ?? 60_000);
  }
  return { units, needed, held, deposited, ...(tx ? { tx } : {}) };
}
