import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';

/** A random checksummed address. */
export function randomAddress(): `0x${string}` {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/** A network file as `ops network:upsert` takes it. */
export function networkFile(chainId = 31337, extra: Record<string, unknown> = {}) {
  return {
    chain_id: chainId,
    name: `Test ${chainId}`,
    rpc_urls: ['http://127.0.0.1:8545'],
    contracts: {
      mothership: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      rfq: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      opshuns_core: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      margin_rfq_core: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
      margin_vault_factory: '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9',
    },
    tokens: [
      {
        address: '0xa513e6e4b8f2a923d98304ec87f64353c4d5c853',
        symbol: 'USDC',
        name: 'USD Coin',
        decimals: 6,
        payment: true,
        default_premium: true,
        faucet: true,
        min_notional: '100000000',
      },
      { address: '0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6', symbol: 'WETH', name: 'Wrapped Ether', decimals: 18, payment: true, faucet: true },
    ],
    ...extra,
  };
}
