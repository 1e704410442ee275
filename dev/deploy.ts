import { encodeAbiParameters, getAddress, getContractAddress, keccak256, concatHex, type Abi, type Account, type Address, type Hex } from 'viem';
import { loadArtifact, type ContractName } from './contract-artifacts';
import { DEVCHAIN_CHAIN_ID, hardhatAccounts, localPublicClient, localWalletClient } from '../shared/chain/clients';
import { DEVELOPMENT_SERVICE_SIGNER } from '../shared/chain/service-signer';
import { mothershipAbi } from '../shared/chain/abis';

/** Where the reference contracts live on one chain. */
export interface DeployedAddresses {
  mothership: Address;
  pairFactory: Address;
  bondVault: Address;
  weth: Address;
  usdc: Address;
  wbtc: Address;
  meme: Address;
  /** The WETH / USDC pair with USDC premiums. */
  pair: Address;
  /** Reference price source of the lending market (contract key `margin_price_oracle`). */
  priceOracle: Address;
  /** Reference lending market (contract key `margin_lending_market`). */
  lendingMarket: Address;
  /** Reference Dutch fill authority, an allowlist owned by the deployer (contract key `fill_authority`). */
  fillAuthority: Address;
}

/**
 * Seconds between a BondVault withdrawal request and its payout: at least the longest exclusive
 * window the API can grant (EXCLUSIVE_FILL_TTL_SECONDS and the Dutch `max_exclusive_ms` are both
 * capped at one hour), plus an hour's margin for the indexer to see the request.
 */
export const DEV_BOND_WITHDRAWAL_DELAY_SECONDS = 7200n;

/** Share of collateral value that counts against debt in the reference lending market. */
export const DEV_LIQUIDATION_THRESHOLD_BPS = 8000;

interface TokenSpec {
  key: 'weth' | 'usdc' | 'wbtc' | 'meme';
  name: string;
  symbol: string;
  decimals: number;
  /** What one faucet() call mints, in whole tokens. */
  faucetWhole: bigint;
  payment: boolean;
  defaultPremium: boolean;
  minNotional?: string;
  /**
   * The devchain's bond minimum for this token (setting `bond_requirements`, in token units):
   * what a Dutch bid or an exclusive fill in it needs. Never zero, so the bond path is on.
   */
  fillBond: string;
}

/** The faucet tokens, in deployment order (their addresses follow from it). */
export const DEV_TOKENS: readonly TokenSpec[] = [
  {
    key: 'weth',
    name: 'Wrapped Ether',
    symbol: 'WETH',
    decimals: 18,
    faucetWhole: 10n,
    payment: true,
    defaultPremium: false,
    minNotional: '10000000000000000',
    fillBond: '1000000000000000', // 0.001 WETH
  },
  {
    key: 'usdc',
    name: 'USD Coin',
    symbol: 'USDC',
    decimals: 6,
    faucetWhole: 100_000n,
    payment: true,
    defaultPremium: true,
    minNotional: '10000000',
    fillBond: '2000000', // 2 USDC
  },
  { key: 'wbtc', name: 'Wrapped Bitcoin', symbol: 'WBTC', decimals: 8, faucetWhole: 1n, payment: false, defaultPremium: false, fillBond: '10000' }, // 0.0001 WBTC
  {
    key: 'meme',
    name: 'Meme Coin',
    symbol: 'MEME',
    decimals: 18,
    faucetWhole: 1_000_000n,
    payment: false,
    defaultPremium: false,
    fillBond: '1000000000000000000000',
  }, // 1,000 MEME
];

function tokenArgs(t: TokenSpec): readonly [string, string, number, bigint] {
  return [t.name, t.symbol, t.decimals, t.faucetWhole * 10n ** BigInt(t.decimals)];
}

function initCode(name: ContractName, args: readonly unknown[]): Hex {
  const { abi, bytecode } = loadArtifact(name);
  const ctor = (abi as Abi).find((item) => item.type === 'constructor');
  if (!ctor || ctor.inputs.length === 0) return bytecode;
  return concatHex([bytecode, encodeAbiParameters(ctor.inputs, args)]);
}

function pairSalt(token0: Address, token1: Address, premiumToken: Address): Hex {
  return keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'address' }, { type: 'address' }], [token0, token1, premiumToken]));
}

/**
 * The addresses a deployment from `deployer` starting at nonce 0 produces. Deployment order is
 * fixed, so a fresh node always gets these, and a restarted devchain can be recognised.
 */
export function expectedAddresses(deployer: Address = hardhatAccounts(1)[0].address): DeployedAddresses {
  const at = (nonce: number) => getContractAddress({ from: deployer, nonce: BigInt(nonce) });
  const [weth, usdc, wbtc, meme] = [0, 1, 2, 3].map(at);
  const mothership = at(4);
  const pairFactory = at(5);
  const bondVault = at(6);
  const pair = getContractAddress({
    opcode: 'CREATE2',
    from: pairFactory,
    salt: pairSalt(weth, usdc, usdc),
    bytecode: initCode('OptionPair', [weth, usdc, usdc, mothership]),
  });
  // Deployed after the pair (nonce 7 created it), so every address above stays where it was.
  const priceOracle = at(8);
  const lendingMarket = at(9);
  const fillAuthority = at(10);
  return { mothership, pairFactory, bondVault, weth, usdc, wbtc, meme, pair, priceOracle, lendingMarket, fillAuthority };
}

/**
 * Deploys the reference contracts and creates the WETH / USDC (premium USDC) pair. `deployer`
 * must have sent no transaction yet on this chain for the addresses to match expectedAddresses.
 */
export async function deployReferenceContracts(opts: {
  rpcUrl: string;
  deployer?: Account;
  chainId?: number;
  /** Registered on the mothership after deployment; the development service signer by default. */
  serviceSigners?: readonly Address[];
}): Promise<DeployedAddresses> {
  const deployer = opts.deployer ?? hardhatAccounts(1)[0];
  const publicClient = localPublicClient(opts.rpcUrl, opts.chainId ?? DEVCHAIN_CHAIN_ID);
  const wallet = localWalletClient(opts.rpcUrl, deployer, opts.chainId ?? DEVCHAIN_CHAIN_ID);

  const deploy = async (name: ContractName, args: readonly unknown[] = []): Promise<Address> => {
    const hash = await wallet.sendTransaction({ data: initCode(name, args) });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deploying ${name} failed in ${hash}`);
    return getAddress(receipt.contractAddress);
  };

  const tokens: Address[] = [];
  for (const t of DEV_TOKENS) tokens.push(await deploy('MockERC20', tokenArgs(t)));
  const [weth, usdc, wbtc, meme] = tokens;
  const mothership = await deploy('Mothership');
  const pairFactory = await deploy('PairFactory', [mothership]);
  const bondVault = await deploy('BondVault', [DEV_BOND_WITHDRAWAL_DELAY_SECONDS]);

  const { abi } = loadArtifact('PairFactory');
  const hash = await wallet.writeContract({ address: pairFactory, abi, functionName: 'createPair', args: [weth, usdc, usdc] });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`createPair failed in ${hash}`);
  const pair = (await publicClient.readContract({ address: pairFactory, abi, functionName: 'getPair', args: [weth, usdc, usdc] })) as Address;
  const priceOracle = await deploy('PriceOracle');
  const lendingMarket = await deploy('LendingMarket', [priceOracle, DEV_LIQUIDATION_THRESHOLD_BPS]);
  const fillAuthority = await deploy('AllowlistFillAuthority');
  // Last: every contract above sits at the address its nonce gives (expectedAddresses).
  for (const signer of opts.serviceSigners ?? [DEVELOPMENT_SERVICE_SIGNER.address]) {
    await ensureServiceSigner({ rpcUrl: opts.rpcUrl, mothership, signer, owner: deployer, chainId: opts.chainId });
  }
  return { mothership, pairFactory, bondVault, weth, usdc, wbtc, meme, pair: getAddress(pair), priceOracle, lendingMarket, fillAuthority };
}

/**
 * Registers `signer` on the mothership unless it already is. `owner` must be the account that
 * deployed the mothership (the devchain's: Hardhat account 0). Transactions only when needed, so
 * adopting a running devchain with a newly configured key costs one transaction, once.
 */
export async function ensureServiceSigner(opts: { rpcUrl: string; mothership: Address; signer: Address; owner?: Account; chainId?: number }): Promise<void> {
  const chainId = opts.chainId ?? DEVCHAIN_CHAIN_ID;
  const publicClient = localPublicClient(opts.rpcUrl, chainId);
  const abi = mothershipAbi;
  const registered = await publicClient.readContract({ address: opts.mothership, abi, functionName: 'isServiceSigner', args: [opts.signer] });
  if (registered) return;
  const wallet = localWalletClient(opts.rpcUrl, opts.owner ?? hardhatAccounts(1)[0], chainId);
  const hash = await wallet.writeContract({ address: opts.mothership, abi, functionName: 'setServiceSigner', args: [opts.signer, true], chain: null });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`setServiceSigner(${opts.signer}) failed in ${hash}`);
}

/**
 * Whether the chain at `rpcUrl` holds this build of the reference contracts at `addresses`:
 * the mothership's runtime code must equal the artifact's (it has no immutables), and every
 * other address must hold code.
 */
export async function hasReferenceContracts(rpcUrl: string, addresses: DeployedAddresses, chainId = DEVCHAIN_CHAIN_ID): Promise<boolean> {
  const client = localPublicClient(rpcUrl, chainId);
  const codes = await Promise.all((Object.values(addresses) as Address[]).map((address) => client.getCode({ address })));
  if (codes.some((c) => !c || c === '0x')) return false;
  return codes[Object.keys(addresses).indexOf('mothership')] === loadArtifact('Mothership').deployedBytecode;
}
