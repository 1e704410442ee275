import { createPublicClient, createWalletClient, http, type Abi, type Address, type Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { dutchFillArgs, type AwardJson, type DutchRequestJson } from '@options-rfq/client';

/** The fields of a fillable payload (`dutch_award` to the winner, or `rfq_request` from the award on) that a fill uses. */
export interface FillablePayload {
  quote_id: string;
  dutch_request: DutchRequestJson;
  taker_signature: string;
  directions: number[];
  award: AwardJson;
}

/**
 * Fills a Dutch quote through the mothership's executeDutchFill(request, takerSignature,
 * directions, award, awardSignature) from `account`. Only the award's `filler` gets the winning
 * price during the exclusive window; anyone else pays the override on top. `mothershipAbi` is
 * GET /api/abis' `mothership`, `mothership` the chain's `contracts.mothership` in GET /api/networks.
 */
export async function fillDutchAward(
  chain: { rpcUrl: string; chainId: number; mothership: Address; mothershipAbi: Abi },
  account: LocalAccount,
  p: FillablePayload,
): Promise<Hex> {
  // request: dutch_request as the DutchFillRequest tuple; takerSignature and directions as published.
  const [request, takerSignature, directions] = dutchFillArgs(p);
  // award: the five signed members, in the struct's order; `signer` and `signature` are not part of it.
  const award = {
    requestDigest: p.award.request_digest as Hex,
    filler: p.award.filler as Address,
    improvementBps: BigInt(p.award.improvement_bps),
    notBefore: p.award.not_before,
    exclusiveEnd: p.award.exclusive_end,
  };
  // awardSignature: award.signature, as is.
  const awardSignature = p.award.signature as Hex;

  const viemChain = {
    id: chain.chainId,
    name: `chain ${chain.chainId}`,
    nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [chain.rpcUrl] } },
  };
  const wallet = createWalletClient({ account, chain: viemChain, transport: http(chain.rpcUrl) });
  const reader = createPublicClient({ chain: viemChain, transport: http(chain.rpcUrl) });
  const call = {
    address: chain.mothership,
    abi: chain.mothershipAbi,
    functionName: 'executeDutchFill',
    args: [request, takerSignature, directions, award, awardSignature],
    chain: viemChain,
  } as const;
  // not_before is the competition's end by the service's clock: a block in that same second may
  // still be a moment behind (AwardNotYet). Try again until the exclusive window is over.
  for (;;) {
    try {
      const hash = await wallet.writeContract(call);
      const receipt = await reader.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`executeDutchFill reverted in ${hash}`);
      return hash;
    } catch (err) {
      if (!/AwardNotYet/.test((err as Error).message) || Date.now() / 1000 > p.award.exclusive_end) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
