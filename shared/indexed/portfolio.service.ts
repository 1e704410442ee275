import type { DataSource } from 'typeorm';
import { decodeOptionId } from '../protocol/option-id';
import { NetworksService } from '../networks';
import { IndexedDataRepository, type BalanceRecord, type OrderRecord } from './indexed-data.repository';

/** An option series as the portfolio shows it; null fields when the id is not one of ours. */
interface SeriesView {
  option_type: 'call' | 'put' | null;
  strike_wad: string | null;
  expiry_timestamp: number | null;
  start_exercise_timestamp: number | null;
}

export interface HoldingView extends SeriesView {
  clob: string;
  option_id: string;
  balance: string;
  token0: string | null;
  token1: string | null;
  premium_token: string | null;
  updated_block: number;
  /** The series is past its expiry; false when the id is not one of ours (no expiry known). */
  expired: boolean;
}

export interface ClosedHoldingView extends HoldingView {
  /** Nothing left of an id the wallet once held (sold, transferred, exercised or settled away). */
  state: 'closed';
}

export interface OpenOrderView extends SeriesView {
  clob: string;
  order_id: string;
  option_id: string;
  side: 'buy' | 'sell';
  price: string;
  amount: string;
  remaining: string;
  placed_block: number;
  tx_hash: string;
}

export interface PortfolioView {
  address: string;
  networks: { chain_id: number; holdings: HoldingView[]; open_orders: OpenOrderView[]; closed: ClosedHoldingView[] }[];
}

function series(optionId: string): SeriesView {
  try {
    const s = decodeOptionId(BigInt(optionId));
    return {
      option_type: s.option_type === 0 ? 'call' : 'put',
      strike_wad: s.strike_wad.toString(),
      expiry_timestamp: s.expiry_timestamp,
      start_exercise_timestamp: s.start_exercise_timestamp,
    };
  } catch {
    return { option_type: null, strike_wad: null, expiry_timestamp: null, start_exercise_timestamp: null };
  }
}

function holding(b: BalanceRecord, nowSeconds: number): HoldingView {
  const s = series(b.option_id);
  return {
    clob: b.pair,
    option_id: b.option_id,
    ...s,
    balance: b.balance,
    token0: b.token0,
    token1: b.token1,
    premium_token: b.premium_token,
    updated_block: Number(b.updated_block),
    expired: s.expiry_timestamp !== null && s.expiry_timestamp <= nowSeconds,
  };
}

function order(o: OrderRecord): OpenOrderView {
  return {
    clob: o.pair,
    order_id: o.order_id,
    option_id: o.option_id,
    ...series(o.option_id),
    side: o.is_buy ? 'buy' : 'sell',
    price: o.price,
    amount: o.amount,
    remaining: o.remaining,
    placed_block: Number(o.placed_block),
    tx_hash: o.tx_hash,
  };
}

/**
 * A wallet's CLOB positions from indexed data: holdings (every balance > 0, as the spec says; an
 * expired series still held is shown with `expired: true`, since its tokens are still the
 * wallet's to exercise or settle), open book orders, and closed holdings (once held, now zero).
 */
export class PortfolioService {
  private readonly repo: IndexedDataRepository;
  private readonly networks: NetworksService;

  constructor(ds: DataSource) {
    this.repo = new IndexedDataRepository(ds);
    this.networks = new NetworksService(ds);
  }

  /** `address` checksummed; `chainId` limits to one network and must be an enabled one (400 otherwise). */
  async portfolio(address: string, chainId?: number, nowSeconds = Math.floor(Date.now() / 1000)): Promise<PortfolioView> {
    const ids =
      chainId !== undefined ? [(await this.networks.requireNetwork(chainId)).chain_id] : (await this.networks.networks()).networks.map((n) => n.chain_id);
    const [balances, orders] = await Promise.all([this.repo.balances(address, ids), this.repo.openOrders(address, ids)]);
    return {
      address,
      networks: ids.map((id) => {
        const holdings: HoldingView[] = [];
        const closed: ClosedHoldingView[] = [];
        for (const b of balances) {
          if (b.chain_id !== id) continue;
          const h = holding(b, nowSeconds);
          if (BigInt(b.balance) > 0n) holdings.push(h);
          else closed.push({ ...h, state: 'closed' });
        }
        return { chain_id: id, holdings, open_orders: orders.filter((o) => o.chain_id === id).map(order), closed };
      }),
    };
  }
}
