import { randomInt } from 'node:crypto';
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type LocalAccount, type PrivateKeyAccount } from 'viem/accounts';
import { brokeredRequest, networkContract, RfqClient, signDutchRequest } from '../../client/src';
import { bondVaultAbi, mockErc20Abi } from '../../shared/chain/abis';
import { hardhatAccounts } from '../../shared/chain/clients';
import { topics } from '../../shared/events';
import { NetworksService } from '../../shared/networks';
import { revertName } from '../integration/chain/reverts';
import { topicEvents } from '../support/events';
import { ops } from '../support/ops';
import { useWholeService } from '../support/whole-service';

const FILL_BOND = 5_000_000n;
const FADE_LIMIT = 2;
const FADE_WINDOW = 86_400;
const FADE_COOLDOWN = 1_800;
const BONDED = { USDC: { premium_bond_amount: '1', fill_bond_amount: FILL_BOND.toString() } };

/**
 * The bond findings of the trust model, attacked on the whole service as `npm start` runs it (its
 * own Hardhat devchain with the reference contracts, the API over HTTP, workers and indexer):
 * a Dutch bid that costs nothing, a griefer that wins the exclusive window and never fills, a
 * bond withdrawn under a live exclusive right, and a premium token nobody set a bond for.
 */
describe('attack: free Dutch bids, no-show winners and runaway bonds', () => {
  const whole = useWholeService({ DUTCH_FADE_LIMIT: String(FADE_LIMIT), DUTCH_FADE_WINDOW: String(FADE_WINDOW), DUTCH_FADE_COOLDOWN: String(FADE_COOLDOWN) });
  let client: RfqClient;
  let rpcUrl: string;
  let mothership: Address;
  let pair: Address;
  let usdc: Address;
  let weth: Address;
  let vault: Address;

  const chain = () => ({ id: 31337, name: 'local', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
  const reader = () => createPublicClient({ chain: chain(), transport: http(rpcUrl) });
  const walletOf = (account: PrivateKeyAccount | LocalAccount) => createWalletClient({ account, chain: chain(), transport: http(rpcUrl) });
  const rpc = async (method: string, params: unknown[] = []) => {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: unknown }).result;
  };
  const send = async (
    from: PrivateKeyAccount | LocalAccount,
    address: Address,
    abi: typeof bondVaultAbi | typeof mockErc20Abi,
    functionName: string,
    args: unknown[] = [],
  ) => {
    const hash = await walletOf(from).writeContract({ address, abi, functionName, args } as Parameters<ReturnType<typeof walletOf>['writeContract']>[0]);
    const receipt = await reader().waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    return receipt;
  };
  const rows = <T>(sql: string, params: unknown[]) => whole.env.db.query(sql, params) as Promise<T[]>;

  /** Polls `read` until `done`, mining a block each round when `mine` (the indexer decides windows on new blocks). */
  async function waitFor<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, o: { mine?: boolean; timeoutMs?: number } = {}): Promise<T> {
    const until = Date.now() + (o.timeoutMs ?? 60_000);
    for (;;) {
      const v = await read();
      if (done(v)) return v;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
      if (o.mine) await rpc('evm_mine');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** A maker organization of its own (the operator's CLI), gas, faucet USDC and a session. */
  async function newMaker(name: string): Promise<{ account: PrivateKeyAccount; api: RfqClient; token: string }> {
    const account = privateKeyToAccount(generatePrivateKey());
    const created = await ops(whole.env, 'org:create', '--kind', 'maker', '--name', `${name} ${Date.now()}`, '--owner', account.address);
    expect(created.code).toBe(0);
    const funder = hardhatAccounts(6)[5];
    await reader().waitForTransactionReceipt({ hash: await walletOf(funder).sendTransaction({ to: account.address, value: parseEther('1') }) });
    await send(account, usdc, mockErc20Abi, 'faucet');
    const { token } = await client.signIn(account);
    return { account, api: client.as(token), token };
  }

  /** Deposits `amount` USDC into the BondVault and waits until the indexer has it. */
  async function bond(account: PrivateKeyAccount, amount: bigint): Promise<void> {
    await send(account, usdc, mockErc20Abi, 'approve', [vault, amount]);
    const r = await send(account, vault, bondVaultAbi, 'deposit', [usdc, amount]);
    await waitFor(
      'the deposit indexed',
      () => rows(`SELECT 1 FROM indexer_bond_events WHERE tx_hash = $1`, [r.transactionHash.toLowerCase()]),
      (x) => x.length === 1,
    );
  }

  /**
   * A taker that can pay the premium (gas, faucet USDC, an allowance to the mothership): a winner
   * that misses its window is then the winner's fade, not the taker's (docs/DUTCH.md, "Unfillable takers").
   */
  const taker = privateKeyToAccount(generatePrivateKey());

  /** The taker's Dutch auction: competes `competeMs`, one second of exclusivity. */
  async function auction(o: { competeMs: number }): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const leg = (structure: 0 | 1, strike: number) => ({
      pair6909_contract: pair,
      option_type: 0 as const,
      structure,
      start_exercise_timestamp: 0,
      expiry_timestamp: now + 86_400,
      strike_wad: (BigInt(strike) * 10n ** 18n).toString(),
      amount: (10n ** 18n).toString(),
    });
    const directions: (0 | 1)[] = [1, 0];
    const dutch_request = brokeredRequest(
      {
        intents: [leg(0, 3000), leg(1, 3500)],
        tokens: [{ token0: weth, token1: usdc, premium_token: usdc }],
        dutch_premium: { token: usdc, maker_pays_taker: false, start_premium: '100000000', end_premium: '200000000', decay_rate: '0', auction_start: now },
        auction_end: now + 300,
        taker_nonce: String(Date.now()) + String(randomInt(1000)),
      },
      directions,
      mothership,
    );
    const created = await client.createDutchQuote({
      chain_id: 31337,
      taker_address: taker.address,
      offer_formats: 'dutch_only',
      directions,
      expires_in: 300,
      compete_ms: o.competeMs,
      exclusive_ms: 1000,
      taker_signature: await signDutchRequest(taker, { chainId: 31337, mothership, request: dutch_request }),
      dutch_request,
    });
    return created.quote.id;
  }

  /** A maker's bid over HTTP as any bot sends it: the status, the error body when refused, the headers. */
  async function bidOn(maker: { token: string }, quoteId: string, bps = 5000): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
    const res = await fetch(`${whole.svc.url}/api/quote/${quoteId}/offer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${maker.token}` },
      body: JSON.stringify({ buy_override_bps: bps, sell_override_bps: bps }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
  }
  const bidsOf = (quoteId: string) => rows<{ maker: string }>(`SELECT maker FROM dutch_bids WHERE quote_id = $1`, [quoteId]);

  /** Lets the chain's time pass the quote's exclusive end and waits for the indexer's decision on it. */
  async function windowPasses(quoteId: string): Promise<{ faded: boolean; winner: string }> {
    const [q] = await waitFor(
      'the award',
      () => rows<{ winner: string | null; exclusive_ends_at: Date | null }>(`SELECT winner, exclusive_ends_at FROM quotes WHERE id = $1`, [quoteId]),
      (r) => r[0]?.winner != null && r[0].exclusive_ends_at != null,
    );
    const block = (await reader().getBlock()).timestamp;
    const end = Math.ceil(new Date(q.exclusive_ends_at!).getTime() / 1000);
    if (BigInt(end) >= block) await rpc('evm_increaseTime', [end - Number(block) + 2]);
    const [o] = await waitFor(
      'the exclusive window decided',
      () => rows<{ faded: boolean; winner: string }>(`SELECT faded, winner FROM dutch_exclusive_outcomes WHERE quote_id = $1`, [quoteId]),
      (r) => r.length === 1,
      { mine: true },
    );
    return o;
  }

  beforeAll(async () => {
    client = new RfqClient(whole.svc.url);
    const net = (await client.networks()).networks.find((n) => n.chain_id === 31337)!;
    rpcUrl = net.rpc_urls[0];
    mothership = networkContract(net, 'mothership');
    pair = networkContract(net, 'opshuns_core');
    usdc = networkContract(net, 'usdc');
    weth = networkContract(net, 'weth');
    vault = networkContract(net, 'bond_vault');
    await new NetworksService(whole.env.db).setSetting('bond_requirements', BONDED);
    await reader().waitForTransactionReceipt({ hash: await walletOf(hardhatAccounts(6)[5]).sendTransaction({ to: taker.address, value: parseEther('1') }) });
    await send(taker, usdc, mockErc20Abi, 'faucet');
    await send(taker, usdc, mockErc20Abi, 'approve', [mothership, 2n ** 256n - 1n]);
  }, 60_000);

  it('a no-show griefer without a bond cannot bid: 403 insufficient_fill_bond with the requirements, and no bid is stored', async () => {
    const griefer = await newMaker('Unbonded griefer');
    const quoteId = await auction({ competeMs: 60_000 });
    const res = await bidOn(griefer, quoteId);
    expect(res).toMatchObject({ status: 403, body: { code: 'insufficient_fill_bond' } });
    expect(res.body.fill_bond_requirements).toEqual({ USDC: { token: usdc, fill_bond_amount: FILL_BOND.toString(), maker_bond: '0' } });
    expect(await bidsOf(quoteId)).toEqual([]);
  }, 120_000);

  it('a premium token with no bond entry is refused (fails closed) until the operator sets one, even an explicit zero', async () => {
    const maker = await newMaker('Maker on an unbonded token');
    await bond(maker.account, FILL_BOND);
    const networks = new NetworksService(whole.env.db);
    await networks.setSetting('bond_requirements', { WETH: { premium_bond_amount: '1', fill_bond_amount: '1' } });
    try {
      const quoteId = await auction({ competeMs: 60_000 });
      const res = await bidOn(maker, quoteId);
      expect(res).toMatchObject({ status: 403, body: { code: 'bond_requirement_missing' } });
      expect(String(res.body.error)).toContain('USDC');
      expect(await bidsOf(quoteId)).toEqual([]);
      // An explicit zero is the operator's choice: then no bond is needed.
      await networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '0', fill_bond_amount: '0' } });
      const unbonded = await newMaker('Maker under a zero requirement');
      expect((await bidOn(unbonded, quoteId, 1)).status).toBe(201);
    } finally {
      await networks.setSetting('bond_requirements', BONDED);
    }
  }, 120_000);

  it('a bonded griefer that wins and never fills records fades; at the limit its bids are refused with when, shown on /api/me and rfq_maker', async () => {
    const griefer = await newMaker('Bonded griefer');
    const honest = await newMaker('Honest maker');
    await bond(griefer.account, FILL_BOND);
    await bond(honest.account, FILL_BOND);

    for (let i = 1; i <= FADE_LIMIT; i++) {
      const quoteId = await auction({ competeMs: 5000 });
      expect((await bidOn(griefer, quoteId)).status).toBe(201);
      const outcome = await windowPasses(quoteId);
      expect(outcome).toEqual({ faded: true, winner: griefer.account.address });
      const me = await griefer.api.me();
      expect((me as unknown as { dutch_fades: unknown }).dutch_fades).toMatchObject({ count: i, limit: FADE_LIMIT, window_seconds: FADE_WINDOW });
    }

    const quoteId = await auction({ competeMs: 60_000 });
    const before = Date.now();
    const refused = await bidOn(griefer, quoteId);
    const after = Date.now();
    expect(refused).toMatchObject({ status: 403, body: { code: 'maker_faded' } });
    const blockedUntil = String(refused.body.blocked_until);
    expect(new Date(blockedUntil).toISOString()).toBe(blockedUntil);
    expect(new Date(blockedUntil).getTime()).toBeGreaterThan(Date.now());
    // Retry-After says the same in seconds.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor((new Date(blockedUntil).getTime() - after) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((new Date(blockedUntil).getTime() - before) / 1000));
    expect(await bidsOf(quoteId)).toEqual([]);
    // Only the griefer's organization is blocked: the honest maker's bid on the same auction stands.
    expect((await bidOn(honest, quoteId, 10)).status).toBe(201);

    const me = (await griefer.api.me()) as unknown as { dutch_fades: Record<string, unknown> };
    expect(me.dutch_fades).toEqual({ count: FADE_LIMIT, window_seconds: FADE_WINDOW, limit: FADE_LIMIT, blocked_until: blockedUntil });
    const honestMe = (await honest.api.me()) as unknown as { dutch_fades: Record<string, unknown> };
    expect(honestMe.dutch_fades).toEqual({ count: 0, window_seconds: FADE_WINDOW, limit: FADE_LIMIT, blocked_until: null });

    const heard = await waitFor(
      'the dutch_fade events',
      async () => (await topicEvents(whole.env, topics.rfqMaker(griefer.account.address))).filter((e) => e.event === 'dutch_fade'),
      (e) => e.length === FADE_LIMIT,
    );
    expect(heard.map((e) => (e.payload.dutch_fades as { count: number }).count)).toEqual([1, 2]);
    expect((heard[1].payload.dutch_fades as { blocked_until: string }).blocked_until).toBe(blockedUntil);
  }, 240_000);

  it('a bond cannot leave under a live exclusive right: withdraw before the delay reverts on chain, and a pending withdrawal is not counted', async () => {
    const maker = await newMaker('Maker pulling its bond');
    await bond(maker.account, FILL_BOND);
    const live = await auction({ competeMs: 60_000 });
    expect((await bidOn(maker, live, 20)).status).toBe(201);

    const delay = (await reader().readContract({ address: vault, abi: bondVaultAbi, functionName: 'withdrawalDelay' })) as bigint;
    expect(delay).toBeGreaterThanOrEqual(3600n);
    const req = await send(maker.account, vault, bondVaultAbi, 'requestWithdrawal', [usdc, FILL_BOND]);
    const early = reader().simulateContract({ account: maker.account, address: vault, abi: bondVaultAbi, functionName: 'withdraw', args: [usdc] });
    expect(await revertName(early)).toBe('WithdrawalNotReady');
    expect(await reader().readContract({ address: vault, abi: bondVaultAbi, functionName: 'bondOf', args: [maker.account.address, usdc] })).toBe(FILL_BOND);

    await waitFor(
      'the request indexed',
      () => rows(`SELECT 1 FROM indexer_bond_events WHERE tx_hash = $1 AND kind = 'request'`, [(req.transactionHash as Hex).toLowerCase()]),
      (x) => x.length === 1,
    );
    const next = await auction({ competeMs: 60_000 });
    const res = await bidOn(maker, next);
    expect(res).toMatchObject({ status: 403, body: { code: 'insufficient_fill_bond' } });
    expect(res.body.fill_bond_requirements).toEqual({ USDC: { token: usdc, fill_bond_amount: FILL_BOND.toString(), maker_bond: '0' } });
    expect(await bidsOf(next)).toEqual([]);
  }, 180_000);
});
