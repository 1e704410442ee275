import { createPublicClient, createWalletClient, http, type Abi, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { loadArtifact } from '../dev/contract-artifacts';
import { ApiError, exclusiveFillMessage, orderIntent, type CreatedExclusiveFill, type OrderView, type RfqClient } from '../client/src';
import { log } from './console-log';

export interface OrdersFlowOptions {
  client: RfqClient;
  chainId: number;
  rpcUrl: string;
  pair: Address;
  bondVault: Address;
  premiumToken: Address;
  /** The order's owner: records the order and places it on chain. */
  owner: PrivateKeyAccount;
  /** A maker organization member: posts a bond, takes the exclusive fill and fills on chain. */
  maker: PrivateKeyAccount;
  /** The fill bond the maker must hold, in premium-token units (at least GET /api/bond-requirements' fill_bond_amount); only the shortfall is deposited. */
  bond: bigint;
  timeoutMs?: number;
}

/** Polls `read` until `done` holds. */
async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: is the indexer running?`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The orders flow of docs/ORDERS.md, end to end: the owner records an order and places it on
 * the pair; the maker tops its bond in the BondVault up, takes an exclusive fill once the bond is
 * indexed, and fills on chain with the API's signature; the indexer marks the order filled and
 * the fill used; the owner's portfolio shows the option.
 */
export async function runOrdersFlow(o: OrdersFlowOptions): Promise<{ order: OrderView; fill: CreatedExclusiveFill; txHash: Hex }> {
  const timeoutMs = o.timeoutMs ?? 30000;
  const chain = { id: o.chainId, name: 'local', nativeCurrency: { name: 'ETH', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [o.rpcUrl] } } };
  const pub = createPublicClient({ chain, transport: http(o.rpcUrl) });
  const send = async (account: PrivateKeyAccount, address: Address, abi: Abi, functionName: string, args: readonly unknown[]): Promise<Hex> => {
    const wallet = createWalletClient({ account, chain, transport: http(o.rpcUrl) });
    const hash = await wallet.writeContract({ address, abi, functionName, args } as never);
    const receipt = await pub.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted: ${hash}`);
    return hash;
  };
  const pairAbi = loadArtifact('OptionPair').abi as Abi;

  // 1. The owner records an order (signed in: destination.from must be its wallet) and places it.
  const ownerApi = o.client.as((await o.client.signIn(o.owner)).token);
  const now = Math.floor(Date.now() / 1000);
  const expiry = now + 7 * 86400;
  const order = await ownerApi.createOrder({
    chain_id: o.chainId,
    amount: '1000000000000000000',
    destination: { from: o.owner.address, to: o.pair, nonce: { prefix: 1, nonce: String(Date.now()) } },
    data: {
      options6909Contract: o.pair,
      rewardLimits: { fillerRewardMaxPerMintedUnit: '1000', fillerRewardMinPerMintedUnit: '1' },
      pairKey: { optionType: 0, startExecutionTimeStamp: 0, expiryTimestamp: expiry },
      decayPremium: { premiumStart: '125000000', premiumEnd: '100000000', decayRateBpsPerSecond: 1 },
      decayStrike: { strikeStart: '3000000000000000000000', strikeEnd: '3000000000000000000000', decayRateBpsPerSecond: 0 },
      decayMinFill: { startMinFill: '0', decayRatePerSecond: '0' },
      buyOrSell: 0,
      intentStartTime: now - 60,
      intentExpiry: now + 3600,
      orderOnExpiry: 0,
    },
  });
  log('owner', 'order recorded', { id: order.id, intent_hash: order.intent_hash });
  await send(o.owner, o.pair, pairAbi, 'placeIntent', [orderIntent(order)]);
  const placed = await until(
    'the placed order to be indexed',
    () => o.client.getOrder(order.id),
    (v) => v.on_chain !== null,
    timeoutMs,
  );
  log('owner', 'order placed on chain (placeIntent) and indexed', { pair_order_id: placed.on_chain?.pair_order_id });

  // 2. The maker tops its bond up to `bond` (an earlier run may have left enough).
  const makerApi = o.client.as((await o.client.signIn(o.maker)).token);
  const erc20 = loadArtifact('MockERC20').abi as Abi;
  const vault = loadArtifact('BondVault').abi as Abi;
  const read = (address: Address, abi: Abi, functionName: string, args: readonly unknown[]) =>
    pub.readContract({ address, abi, functionName, args }) as Promise<bigint>;
  const held = await read(o.bondVault, vault, 'bondOf', [o.maker.address, o.premiumToken]);
  if (held < o.bond) {
    const amount = o.bond - held;
    while ((await read(o.premiumToken, erc20, 'balanceOf', [o.maker.address])) < amount) await send(o.maker, o.premiumToken, erc20, 'faucet', []);
    await send(o.maker, o.premiumToken, erc20, 'approve', [o.bondVault, amount]);
    await send(o.maker, o.bondVault, vault, 'deposit', [o.premiumToken, amount]);
    log('maker', 'bond deposited in the BondVault', { amount: amount.toString(), bond: o.bond.toString() });
  } else {
    log('maker', 'bond already in the BondVault', { held: held.toString(), needed: o.bond.toString() });
  }

  // 3. Exclusive fill, once the indexer has seen the bond (until then: 403 insufficient_fill_bond).
  const fill = await until(
    'the bond to be indexed',
    async () => {
      try {
        return await makerApi.createExclusiveFill({ order_ids: [order.id], reward_destination: o.maker.address });
      } catch (err) {
        if (err instanceof ApiError && err.body.code === 'insufficient_fill_bond') return null;
        throw err;
      }
    },
    (v): v is CreatedExclusiveFill => v !== null,
    timeoutMs,
  );
  if (!fill) throw new Error('no exclusive fill');
  log('maker', 'exclusive fill granted', { id: fill.exclusive_fill_id, expire_time: fill.exclusive_fill.expire_time });

  // 4. Fill on chain with the API's signature.
  const txHash = await send(o.maker, o.pair, pairAbi, 'fillExclusive', [exclusiveFillMessage(fill), fill.signature, [orderIntent(order)], 10n]);
  log('maker', 'filled on chain (fillExclusive)', { tx: txHash });

  // 5. The indexer marks the order filled; the owner's portfolio holds the option.
  const filled = await until(
    'the order to be filled',
    () => o.client.getOrder(order.id),
    (v) => v.state === 'filled',
    timeoutMs,
  );
  log('indexer', 'order filled', { fill_tx_hash: filled.fill_tx_hash });
  const portfolio = await o.client.call<{ networks: { chain_id: number; holdings: { clob: string; balance: string }[] }[] }>(
    'GET',
    `/api/portfolio/${o.owner.address}?chain_id=${o.chainId}`,
  );
  const holding = portfolio.networks[0]?.holdings.find((h) => h.clob.toLowerCase() === o.pair.toLowerCase());
  if (!holding) throw new Error("the owner's portfolio does not show the option");
  log('portfolio', 'the owner holds the option', { balance: holding.balance });
  return { order: filled, fill, txHash };
}
