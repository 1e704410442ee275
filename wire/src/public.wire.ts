import { z } from 'zod';
import { wireAddress, wireChainId } from './formats';

/** The public registry: networks and tokens (GET /api/networks, /api/payment-tokens, /api/default-premium-tokens). */

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
    .meta({ description: 'Deployed contracts by registry key (mothership, rfq, opshuns_core, tokens...); margin keys are never served.' }),
});

export const networksAnswer = z.strictObject({ networks: z.array(networkView) });
export const paymentTokensAnswer = z.strictObject({ tokens: z.array(paymentToken) });
export const defaultPremiumTokensAnswer = z.strictObject({ tokens: z.array(tokenView) });
