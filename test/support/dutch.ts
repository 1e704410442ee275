import { maxUint256, parseEther, zeroAddress, type Address, type Hex } from 'viem';
import type { LocalAccount } from 'viem/accounts';
import { mockErc20Abi } from '../../shared/chain/abis';
import { localWalletClient } from '../../shared/chain/clients';
import { dutchAwardJob } from '../../shared/dutch';
import type { JobQueue } from '../../shared/platform/queue';
import { directions as deriveDirections, directionsHash, dutchFillTypedData, parseDutchRequest, type DutchAward, type Polarity } from '../../shared/protocol';
import { QUOTE_STATE_SQL, QUOTES_QUEUE, quoteExpireJob } from '../../shared/quotes';
import { DUTCH_PHASE_SQL } from '../../shared/dutch';
import type { TestChain } from './chain';
import { FIXTURE_PAIR, FIXTURE_USDC, intents } from './quotes';

/** The fixture network's WETH (networkFile), token0 of the fixture pair. */
export const FIXTURE_WETH: Address = '0x2279B7A0a67DB372996a5FaB50D91eAA73d2eBe6';

/** The fixture network's mothership (networkFile). */
export const FIXTURE_MOTHERSHIP: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

let nonce = BigInt(Date.now()) * 1000n;

export interface DutchBodyOptions {
  polarity?: Polarity;
  /** Changes to the snake_case dutch_request before signing. */
  request?: Record<string, unknown>;
  /** Changes to the body after signing. */
  body?: Record<string, unknown>;
  /** Signs with this wallet instead of the taker's. */
  signer?: LocalAccount;
  chainId?: number;
  mothership?: Address;
  pair?: string;
  /** Expiry of every leg (default: a day out). */
  expiry?: number;
  legs?: { type: 'call' | 'put'; structure: 0 | 1; strike: bigint; mult?: bigint }[];
}

/**
 * A taker-signed Dutch create body over a test chain's own pair (its WETH / USDC triple, its
 * mothership): the taker pays 1 -> 2 USDC over 600 s from the chain's time. `request` and `body`
 * change the request before signing and the body after, as in dutchBody.
 */
export async function chainDutchBody(
  chain: Pick<TestChain, 'chainId' | 'addresses' | 'now'>,
  taker: LocalAccount,
  o: { request?: Record<string, unknown>; body?: Record<string, unknown> } = {},
): Promise<Record<string, unknown>> {
  const now = await chain.now();
  const { weth, usdc } = chain.addresses;
  return dutchBody(taker, {
    chainId: chain.chainId,
    mothership: chain.addresses.mothership,
    pair: chain.addresses.pair,
    request: {
      tokens: [{ token0: weth, token1: usdc, premium_token: usdc }],
      dutch_premium: { token: usdc, maker_pays_taker: false, start_premium: '1000000', end_premium: '2000000', decay_rate: '0', auction_start: now },
      auction_end: now + 600,
      ...o.request,
    },
    body: o.body,
  });
}

/** A taker-signed Dutch create body: a call spread on the fixture pair, taker pays 100 -> 200 USDC over 10 minutes. */
export async function dutchBody(taker: LocalAccount, o: DutchBodyOptions = {}): Promise<Record<string, unknown>> {
  const now = Math.floor(Date.now() / 1000);
  const legs = o.legs ?? [
    { type: 'call' as const, structure: 0 as const, strike: 3000n },
    { type: 'call' as const, structure: 1 as const, strike: 3500n },
  ];
  const polarity = o.polarity ?? 'b_is_buy';
  const dirs = deriveDirections(
    polarity,
    legs.map((l) => l.structure),
  );
  const dutch_request: Record<string, unknown> = {
    intents: intents(legs, { pair: o.pair ?? FIXTURE_PAIR, expiry: o.expiry }).map((i) => ({ ...i, option_type: i.option_type === 'call' ? 0 : 1 })),
    tokens: [{ token0: FIXTURE_WETH, token1: FIXTURE_USDC, premium_token: FIXTURE_USDC }],
    dutch_premium: { token: FIXTURE_USDC, maker_pays_taker: false, start_premium: '100000000', end_premium: '200000000', decay_rate: '0', auction_start: now },
    auction_end: now + 600,
    maker_address_hash: directionsHash(dirs),
    taker_nonce: String(++nonce),
    required_authority: zeroAddress,
    required_dutch_authority: o.mothership ?? FIXTURE_MOTHERSHIP,
    referrer: zeroAddress,
    ...o.request,
  };
  const chainId = o.chainId ?? 31337;
  const parsed = parseDutchRequest(dutch_request, { now: 0 });
  const signature: Hex = await (o.signer ?? taker).signTypedData(dutchFillTypedData(chainId, o.mothership ?? FIXTURE_MOTHERSHIP, parsed));
  return {
    chain_id: chainId,
    taker_address: taker.address,
    offer_formats: 'dutch_only',
    directions: dirs,
    expires_in: 300,
    compete_ms: 1000,
    exclusive_ms: 1000,
    taker_signature: signature,
    dutch_request,
    ...o.body,
  };
}

/** The award a quote row or an `exclusive` payload carries, as the typed data its signature covers. */
export function storedAward(award: Record<string, string | number>): DutchAward {
  return {
    requestDigest: award.request_digest as `0x${string}`,
    filler: award.filler as `0x${string}`,
    improvementBps: BigInt(award.improvement_bps),
    notBefore: Number(award.not_before),
    exclusiveEnd: Number(award.exclusive_end),
  };
}

/**
 * Records the fixture pair's tokens (the triple dutchBody signs) as the indexer would after the
 * factory's PairCreated, so a Dutch create on the fixture network (no chain behind it) can check
 * its tokens against the pair. Run after the network is registered.
 */
export async function recordFixturePair(db: { query(sql: string, params?: unknown[]): Promise<unknown> }, chainId = 31337): Promise<void> {
  await db.query(
    `INSERT INTO indexer_pairs (chain_id, address, factory, token0, token1, premium_token, created_block, created_block_hash, created_log_index, tx_hash)
     VALUES ($1, $2, $3, $4, $5, $5, 1, $6, 0, $6) ON CONFLICT DO NOTHING`,
    [chainId, FIXTURE_PAIR, zeroAddress, FIXTURE_WETH, FIXTURE_USDC, `0x${'00'.repeat(32)}`],
  );
}

/** A competition long enough that no machine is slow enough to end it under a test's bids; the test ends it with `endNow`. */
export const LONG_COMPETE_MS = 300_000;

/**
 * Ends a Dutch quote's competition (`'competition'`) or the quote itself (`'quote'`) now, after
 * the test saw what it needed (its bids confirmed, the quote open): the deadline column becomes
 * the database's now and the job the create scheduled for it (dutch.award or quote.expire) runs
 * at once instead of at its delay. The shipped handler then decides exactly as at a real deadline.
 * A test that bids creates its quote with a long window (`LONG_COMPETE_MS`, a far expiry) and
 * calls this, so the window is derived from the bids, not from how fast the machine placed them.
 * Throws when there is nothing to end (the quote no longer open, or no longer competing).
 */
export async function endNow(
  env: { db: { query(sql: string, params?: unknown[]): Promise<unknown> }; queue: JobQueue },
  quoteId: string,
  what: 'competition' | 'quote',
): Promise<void> {
  const competition = what === 'competition';
  const rows = (await env.db.query(
    `WITH ended AS (UPDATE quotes SET ${competition ? 'compete_ends_at' : 'expires_at'} = now()
       WHERE id = $1 AND state = ${QUOTE_STATE_SQL.open} ${competition ? `AND dutch_phase = ${DUTCH_PHASE_SQL.competing}` : ''} RETURNING id)
     SELECT id FROM ended`,
    [quoteId],
  )) as { id: string }[];
  if (rows.length !== 1) throw new Error(`endNow: quote ${quoteId} has no ${what} to end (${competition ? 'not open and competing' : 'not open'})`);
  const jobId = (competition ? dutchAwardJob : quoteExpireJob).jobId({ quote_id: quoteId });
  const job = await env.queue.queue(QUOTES_QUEUE).getJob(jobId);
  if (!job) throw new Error(`endNow: the ${jobId} job the create scheduled is gone`);
  if (await job.isDelayed()) await job.promote();
}

/**
 * Makes `taker` a taker that can pay a Dutch premium on a test chain: gas from accounts[9] when it
 * has none, USDC from the faucet, and an unlimited USDC allowance to the mothership. A winner that
 * misses the window of such a taker fades; one of a taker without them does not (docs/DUTCH.md,
 * "Unfillable takers"). Returns the allowance transaction's hash.
 */
export async function payingTaker(chain: Pick<TestChain, 'rpcUrl' | 'chainId' | 'publicClient' | 'wallets' | 'addresses'>, taker: LocalAccount): Promise<Hex> {
  const mined = async (hash: Hex) => {
    const r = await chain.publicClient.waitForTransactionReceipt({ hash });
    if (r.status !== 'success') throw new Error(`payingTaker: ${hash} reverted`);
    return hash;
  };
  if ((await chain.publicClient.getBalance({ address: taker.address })) < parseEther('0.1')) {
    await mined(await chain.wallets[9].sendTransaction({ to: taker.address, value: parseEther('1') }));
  }
  const w = localWalletClient(chain.rpcUrl, taker, chain.chainId);
  const usdc = chain.addresses.usdc;
  await mined(await w.writeContract({ address: usdc, abi: mockErc20Abi, functionName: 'faucet', args: [] }));
  return mined(await w.writeContract({ address: usdc, abi: mockErc20Abi, functionName: 'approve', args: [chain.addresses.mothership, maxUint256] }));
}
