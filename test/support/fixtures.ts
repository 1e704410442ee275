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

/**
 * A deterministic stream of integers below `n` (a linear congruential generator from `seed`),
 * for generated histories: the same seed writes the same history, so a failure replays.
 */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
}

/** A 32-byte hex value made of `n` and `salt` (block hashes and transaction hashes of a generated history). */
export const fakeHash = (n: number, salt: number) => `0x${(n * 1000 + salt).toString(16).padStart(64, '0')}` as `0x${string}`;
