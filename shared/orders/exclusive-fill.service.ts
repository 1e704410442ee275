import { randomUUID } from 'node:crypto';
import { getAddress, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { z } from 'zod';
import type { DataSource } from 'typeorm';
import { ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from '../platform/errors';
import type { JobQueue } from '../platform/queue';
import type { Logger } from '../platform/logging';
import { evmAddress, parseOrThrow, required, sizedArray, unknownKeys, whenObject } from '../platform/validation';
import { apiIdToBytes32, exclusiveFillTypedData, intentDataHash, type ExclusiveFill } from '../protocol';
import type { PairDirectory } from '../quotes';
import type { NetworksService } from '../networks';
import { exclusiveFillAnnounceJob, exclusiveFillExpireJob } from './order.jobs';
import { OrderRepository } from './order.repository';
import { holdOrders, lockOrders } from './order-state';
import type { ExclusiveFillRow, OrderRow } from './order.types';
import { exclusiveFillView, type ExclusiveFillView } from './order-views';
import { FillBondCheck } from '../bonds';

function requestSchema(maxOrders: number) {
  const shape = {
    order_ids: required(sizedArray(z.uuid({ message: 'must be an order id (a uuid)' }), 1, maxOrders)),
    reward_destination: required(evmAddress),
  };
  const known = new Set(Object.keys(shape));
  return z
    .looseObject(shape, { message: 'must be a JSON object' })
    .superRefine((b, ctx) => unknownKeys(ctx, b, known, 'is not a field of an exclusive fill request'), whenObject);
}

/**
 * Issues exclusive fills: a maker, bonded at least at the fill bond minimum of each premium
 * token (shared/bonds: fails closed, pending withdrawals do not count), gets the API's signature granting it the listed orders until `expire_time`. The claim
 * is a row lock per order in Postgres, taken in id order, so racing makers over overlapping
 * orders get exactly one winner per order whichever API replica they hit.
 */
export class ExclusiveFillService {
  private readonly repo: OrderRepository;
  private readonly bonds: FillBondCheck;

  constructor(
    private readonly deps: {
      db: DataSource;
      queue: JobQueue;
      logger: Logger;
      pairs: PairDirectory;
      registry: NetworksService;
      signer: () => PrivateKeyAccount;
      ttlSeconds: number;
      maxOrders: number;
    },
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new OrderRepository(deps.db);
    this.bonds = new FillBondCheck({ db: deps.db, registry: deps.registry });
  }

  async create(body: unknown, maker: Address): Promise<ExclusiveFillView> {
    const b = parseOrThrow(requestSchema(this.deps.maxOrders), body);
    const ids = [...new Set(b.order_ids.map((id) => id.toLowerCase()))];
    if (ids.length !== b.order_ids.length) throw ValidationError.field('order_ids', 'must not name an order twice');
    const orders = await this.orders(ids);
    const { chain_id: chainId, pair } = orders[0];
    for (const o of orders) {
      if (o.chain_id !== chainId || o.pair !== pair) {
        throw ValidationError.field(
          'order_ids',
          `order ${o.id} is on ${o.chain_id}:${o.pair}, not ${chainId}:${pair}: one fill covers orders of one chain and CLOB`,
        );
      }
      if (o.state !== 'open') throw new ConflictError(`order ${o.id} is ${o.state}; only open orders can be filled`, 'order_not_open');
    }
    await this.requirePlaced(ids);
    const dir = await this.deps.pairs.get(chainId);
    if (!dir?.mothership) throw new ServiceUnavailableError(`chain ${chainId} has no mothership configured`, 'network_unavailable');
    const requirements = await this.bonds.check(
      chainId,
      getAddress(maker),
      orders.map((o) => o.premium_token),
      dir.tokens,
    );

    const id = randomUUID();
    const nowMs = this.clock();
    const soonestExpiry = Math.min(...orders.map((o) => new Date(o.expires_at).getTime()));
    const expireTime = Math.floor(Math.min(nowMs + this.deps.ttlSeconds * 1000, soonestExpiry) / 1000);
    const fill: ExclusiveFill = {
      exclusiveFillId: apiIdToBytes32(id),
      maker: getAddress(maker),
      orderIds: ids.map(apiIdToBytes32),
      rewardDestination: b.reward_destination as Address,
      intentDataHash: intentDataHash(ids.map((oid) => orders.find((o) => o.id === oid)!.intent_hash)),
      expireTime,
    };
    const signature = await this.deps.signer().signTypedData(exclusiveFillTypedData(chainId, dir.mothership, fill));
    const row: Omit<ExclusiveFillRow, 'state' | 'created_at' | 'closed_at' | 'used_tx_hash'> = {
      id,
      id_hash: fill.exclusiveFillId,
      chain_id: chainId,
      pair,
      maker: fill.maker,
      reward_destination: fill.rewardDestination,
      order_ids: ids,
      intent_data_hash: fill.intentDataHash,
      signature: signature as Hex,
      expire_time: new Date(expireTime * 1000),
    };
    const createdAt = await this.claim(row);
    await this.schedule(id, expireTime * 1000);
    return exclusiveFillView({ ...row, state: 'active', created_at: createdAt, closed_at: null, used_tx_hash: null }, requirements);
  }

  /** The orders, in the request's order; an unknown id is named. */
  private async orders(ids: string[]): Promise<OrderRow[]> {
    const found = new Map((await this.repo.findOrders(ids)).map((o) => [o.id, o]));
    return ids.map((id) => {
      const o = found.get(id);
      if (!o) throw new NotFoundError(`order ${id} not found`, 'order_not_found');
      return o;
    });
  }

  /**
   * Only orders their owners placed on chain: a record nobody placed binds nobody, and a fill
   * over it would only hold it (and block its owner's cancel) for nothing.
   */
  private async requirePlaced(ids: string[]): Promise<void> {
    const unplaced = new Set(await this.repo.unplaced(ids));
    const first = ids.find((id) => unplaced.has(id));
    if (first) {
      throw new ConflictError(
        `order ${first} is not placed on chain: its owner has not called placeIntent (or it is not indexed yet); only placed orders can be filled`,
        'order_not_placed',
      );
    }
  }

  /** One transaction: lock the orders (id order), check each is open and free, record the fill, hold them. */
  private async claim(row: Omit<ExclusiveFillRow, 'state' | 'created_at' | 'closed_at' | 'used_tx_hash'>): Promise<Date> {
    return this.deps.db.transaction(async (m) => {
      const locked = await lockOrders(m, row.order_ids);
      for (const o of locked) {
        if (o.state !== 'open') throw new ConflictError(`order ${o.id} is ${o.state}; only open orders can be filled`, 'order_not_open');
        if (o.held_by) throw new ConflictError(`order ${o.id} is under another active exclusive fill`, 'order_under_exclusive_fill');
      }
      const createdAt = await this.repo.insertFill(m, row);
      await holdOrders(m, row.id, row.order_ids);
      return createdAt;
    });
  }

  /** Tell the maker now, expire at expire_time. A failure leaves work the sweeper does later. */
  private async schedule(id: string, expireAtMs: number): Promise<void> {
    try {
      await this.deps.queue.enqueueMany([
        { spec: exclusiveFillAnnounceJob, payload: { exclusive_fill_id: id, state: 'active' } },
        { spec: exclusiveFillExpireJob, payload: { exclusive_fill_id: id }, opts: { delay: Math.max(0, expireAtMs - this.clock()) } },
      ]);
    } catch (err) {
      this.deps.logger.error({ exclusive_fill_id: id, err: (err as Error).message }, 'enqueue failed; the sweeper will announce and expire this fill');
    }
  }
}
