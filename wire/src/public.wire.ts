import { z } from 'zod';
import { wireAddress, wireChainId } from './formats';

/** The public network data: networks and tokens (GET /api/networks, /api/payment-tokens, /api/default-premium-tokens). */

export const tokenView = z.strictObject({
  chain_id: wireChainId,
  address: wireAddress,
  symbol: z.string(),
  name: z.string(),
  decimals: z.number().int().min(0).max(255),
});

export const paymentToken = tokenView.extend({ faucet: z.boolean().meta({ description: 'A testnet faucet mock token.' }) });

export const networkView = z.strictObject({
  chain_id: wireChainId,
  name: z.string(),
  rpc_urls: z.array(z.string()),
  contracts: z
    .record(z.string(), wireAddress)
    .meta({ description: 'Deployed contracts by contract key (mothership, rfq, opshuns_core, tokens...); margin keys are never served.' }),
});

export const networksAnswer = z.strictObject({ networks: z.array(networkView) });
export const paymentTokensAnswer = z.strictObject({ tokens: z.array(paymentToken) });
export const defaultPremiumTokensAnswer = z.strictObject({ tokens: z.array(tokenView) });

/** One entry of a Solidity JSON ABI (a function, event or error, with its inputs and outputs), as viem and ethers read it. */
const abiItem = z.looseObject({
  type: z.enum(['function', 'event', 'error', 'constructor', 'fallback', 'receive']),
  name: z.string().optional(),
});
const abiWire = z.array(abiItem).readonly().meta({ description: 'A Solidity JSON ABI.' });

export const contractAbisAnswer = z.strictObject({
  abis: z.strictObject({
    mothership: abiWire.meta({ description: 'The mothership (contract key `mothership`): package offers, Dutch fills (`executeDutchFill`), digests.' }),
    option_pair: abiWire.meta({
      description: 'An option pair (CLOB; contract key `opshuns_core`, and every pair the factory creates): orders, `placeIntent`, `fillExclusive`.',
    }),
    bond_vault: abiWire.meta({ description: 'The BondVault (contract key `bond_vault`): `deposit`, `requestWithdrawal`, `withdraw`, `bondOf`.' }),
    erc20: abiWire.meta({
      description: "A network's token: ERC-20, plus `faucet()` and `faucetAmount()` on the test tokens the networks table marks `faucet: true`.",
    }),
  }),
});
