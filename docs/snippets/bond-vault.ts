import { createPublicClient, createWalletClient, http, type Abi, type Address, type Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { networkContract, type RfqClient } from '@options-rfq/client';

/** Where a maker's bond lives on one chain: its RPC, the BondVault, the bond token, and their ABIs. */
export interface BondVaultSetup {
  rpcUrl: string;
  chainId: number;
  bondVault: Address;
  token: Address;
  abis: { bond_vault: Abi; erc20: Abi };
}

/**
 * The bond in `token` (a premium token: GET /api/bond-requirements names each by symbol, GET
 * /api/default-premium-tokens gives symbol and address): the vault from GET /api/networks, ABIs from GET /api/abis.
 */
export async function bondVaultSetup(api: RfqClient, chainId: number, token: Address): Promise<BondVaultSetup> {
  const net = (await api.networks()).networks.find((n) => n.chain_id === chainId);
  if (!net) throw new Error(`chain ${chainId} is not served by ${api.baseUrl}`);
  const { abis } = await api.abis();
  return { rpcUrl: net.rpc_urls[0], chainId, bondVault: networkContract(net, 'bond_vault'), token, abis };
}

function clients(s: BondVaultSetup, account: LocalAccount) {
  const chain = {
    id: s.chainId,
    name: `chain ${s.chainId}`,
    nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [s.rpcUrl] } },
  };
  const reader = createPublicClient({ chain, transport: http(s.rpcUrl) });
  const wallet = createWalletClient({ account, chain, transport: http(s.rpcUrl) });
  /** Sends one call and waits for it to be mined; a revert throws with the contract's error name. */
  const send = async (address: Address, abi: Abi, functionName: string, args: readonly unknown[] = []): Promise<Hex> => {
    const hash = await wallet.writeContract({ address, abi, functionName, args, chain });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted in ${hash}`);
    return hash;
  };
  return { reader, send };
}

/** The bond `account` holds in the vault, in token units (what the API counts once indexed, less a pending withdrawal). */
export async function bondOf(s: BondVaultSetup, account: LocalAccount): Promise<bigint> {
  const { reader } = clients(s, account);
  return (await reader.readContract({ address: s.bondVault, abi: s.abis.bond_vault, functionName: 'bondOf', args: [account.address, s.token] })) as bigint;
}

/**
 * Deposits `amount` of bond: faucet() on a test token while the wallet holds too little (each call
 * mints the token's faucetAmount()), then approve(bondVault, amount) and deposit(token, amount).
 * Returns the deposit's transaction hash.
 */
export async function depositBond(s: BondVaultSetup, account: LocalAccount, amount: bigint): Promise<Hex> {
  const { reader, send } = clients(s, account);
  const balance = () => reader.readContract({ address: s.token, abi: s.abis.erc20, functionName: 'balanceOf', args: [account.address] }) as Promise<bigint>;
  while ((await balance()) < amount) await send(s.token, s.abis.erc20, 'faucet');
  await send(s.token, s.abis.erc20, 'approve', [s.bondVault, amount]);
  return send(s.bondVault, s.abis.bond_vault, 'deposit', [s.token, amount]);
}

/**
 * Announces that `amount` of the bond will leave (0 cancels a pending request). The API stops
 * counting it as soon as the request is indexed; it may leave at the returned time (unix seconds).
 */
export async function requestBondWithdrawal(s: BondVaultSetup, account: LocalAccount, amount: bigint): Promise<bigint> {
  const { reader, send } = clients(s, account);
  await send(s.bondVault, s.abis.bond_vault, 'requestWithdrawal', [s.token, amount]);
  return (await reader.readContract({
    address: s.bondVault,
    abi: s.abis.bond_vault,
    functionName: 'withdrawableAt',
    args: [account.address, s.token],
  })) as bigint;
}

/** Pays the pending amount out, once withdrawableAt has passed (WithdrawalNotReady before, NoPendingWithdrawal without a request). */
export async function withdrawBond(s: BondVaultSetup, account: LocalAccount): Promise<Hex> {
  return clients(s, account).send(s.bondVault, s.abis.bond_vault, 'withdraw', [s.token]);
}
