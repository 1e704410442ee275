import { getAddress, type Address } from 'viem';
import type { DataSource } from 'typeorm';
import { optionPairAbi } from '../chain/abis';
import { localPublicClient } from '../chain/clients';
import { AppError, ValidationError, type FieldProblem } from '../platform/errors';
import type { DutchFillRequest, TokenTriple } from '../protocol';
import type { ChainDirectory } from '../quotes';
import { IndexedDataRepository } from '../indexed';

/**
 * The token triple of a pair (token0, token1, premium token), immutable once the pair exists. The
 * indexer's record of the pair (`indexer_pairs`, from the factory's PairCreated) first, else one
 * read of the pair contract's token0(), token1() and premiumToken() on the network's RPC. An
 * answer is kept for the process's life; a failed read is not.
 */
export class PairTokens {
  private readonly known = new Map<string, Promise<TokenTriple>>();

  constructor(private readonly db: DataSource) {}

  of(dir: ChainDirectory, pair: Address): Promise<TokenTriple> {
    const key = `${dir.network.chain_id}:${getAddress(pair)}`;
    let hit = this.known.get(key);
    if (!hit) {
      hit = this.load(dir, getAddress(pair));
      this.known.set(key, hit);
      hit.catch(() => this.known.delete(key));
    }
    return hit;
  }

  private async load(dir: ChainDirectory, pair: Address): Promise<TokenTriple> {
    const known = await new IndexedDataRepository(this.db).pairTokens(dir.network.chain_id, pair);
    if (known) return { token0: getAddress(known.token0), token1: getAddress(known.token1), premiumToken: getAddress(known.premium_token) };
    const url = dir.network.rpc_urls[0];
    if (!url) throw unavailable(dir.network.chain_id, pair, 'the network has no RPC URL');
    const client = localPublicClient(url, dir.network.chain_id);
    try {
      const [token0, token1, premiumToken] = await Promise.all(
        (['token0', 'token1', 'premiumToken'] as const).map((functionName) => client.readContract({ address: pair, abi: optionPairAbi, functionName })),
      );
      return { token0: getAddress(token0), token1: getAddress(token1), premiumToken: getAddress(premiumToken) };
    } catch (err) {
      throw unavailable(dir.network.chain_id, pair, (err as Error).message.split('\n')[0]!);
    }
  }
}

function unavailable(chainId: number, pair: Address, why: string): AppError {
  return new AppError(503, 'network_unavailable', `cannot read the tokens of pair ${pair} on chain ${chainId}: ${why}`);
}

/**
 * A Dutch request's tokens must be its pair's: the premium token (`dutch_premium.token`) is the
 * pair's premium token, and each entry of `tokens` is the pair's (token0, token1, premium_token),
 * field for field. Otherwise the auction would be awarded on a request the pair cannot settle
 * (or settles in another token than the one makers priced). 400 naming each bad field.
 */
export function dutchTokenProblems(request: DutchFillRequest, pair: TokenTriple): FieldProblem[] {
  const out: FieldProblem[] = [];
  const root = 'dutch_request';
  const same = (a: Address, b: Address) => getAddress(a) === getAddress(b);
  if (!same(request.dutchPremium.token, pair.premiumToken)) {
    out.push({ path: `${root}.dutch_premium.token`, message: `must be the pair's premium token ${pair.premiumToken}` });
  }
  request.tokens.forEach((t, i) => {
    if (!same(t.token0, pair.token0)) out.push({ path: `${root}.tokens[${i}].token0`, message: `must be the pair's token0 ${pair.token0}` });
    if (!same(t.token1, pair.token1)) out.push({ path: `${root}.tokens[${i}].token1`, message: `must be the pair's token1 ${pair.token1}` });
    if (!same(t.premiumToken, pair.premiumToken)) {
      out.push({ path: `${root}.tokens[${i}].premium_token`, message: `must be the pair's premium token ${pair.premiumToken}` });
    }
  });
  return out;
}

/** 400 naming every token of the request that is not its pair's. */
export async function assertDutchTokensOfPair(tokens: PairTokens, dir: ChainDirectory, request: DutchFillRequest): Promise<void> {
  const pair = await tokens.of(dir, getAddress(request.intents[0]!.pair6909Contract));
  const problems = dutchTokenProblems(request, pair);
  if (problems.length > 0)
    throw new ValidationError(
      problems,
      `the request's tokens are not pair ${getAddress(request.intents[0]!.pair6909Contract)}'s: ${problems.map((p) => p.path).join(', ')}`,
    );
}
