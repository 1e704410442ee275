import { randomUUID } from 'node:crypto';
import { getAddress, type Address, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { z } from 'zod';
import type { DataSource, EntityManager } from 'typeorm';
import { AppError, ConflictError, NotFoundError, ServiceUnavailableError, ValidationError } from '../platform/errors';
import { assertNotFaded, assertRoomForRight, type FadePolicy } from '../dutch';
import type { JobQueue } from '../platform/queue';
import type { Logger } from '../platform/logging';
import { evmAddress, parseOrThrow, required, sizedArray, unknownKeys, whenObject } from '../platform/validation';
import { apiIdToBytes32, exclusiveFillTypedData, intentDataHash, type ExclusiveFill } from '../protocol';
import type { PairDirectory } from '../quotes';
import type { NetworksService } from '../networks';
import { exclusiveFillAnnounceJob, exclusiveFillExpireJob } from './order.jobs';
import { OrderRepository } from './order.repository';
import { holdOrders, lockOrders } from './order-state';
import { lockMakerRights } from '../bonds';
import type { ExclusiveFillRow, OrderRow } from './order.types';
import { exclusiveFillView, type ExclusiveFillView } from './order.views';
import { FillBondCheck } from '../bonds';

/** A fill as it is inserted: with the organization it was taken for. */
type NewFillRow = Omit<ExclusiveFillRow, 'state' | 'created_at' | 'closed_at' | 'used_tx_hash'> & { organization_id: string | null };

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
      networks: NetworksService;
      signer: () => PrivateKeyAccount;
      ttlSeconds: number;
      maxOrders: number;
      /** DUTCH_FADE_*: an unused fill is a fade of its maker's organization, counted with Dutch fades. */
      fades: FadePolicy;
      /** EXCLUSIVE_FILL_RETAKE_COOLDOWN, seconds. */
      retakeCooldownSeconds: number;
    },
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new OrderRepository(deps.db);
    this.bonds = new FillBondCheck({ db: deps.db, networks: deps.networks });
  }

  /**
   * `organizationId`: the maker organization the credential acts for (a maker key's issuing
   * organization, a SIWE wallet's membership), whose fades, open rights and bond count.
   */
  async create(body: unknown, maker: Address, organizationId: string | null = null): Promise<ExclusiveFillView> {
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
    const pending = orders.find((o) => o.cancel_requested_at !== null);
    if (pending)
      throw new ConflictError(`order ${pending.id} is being cancelled by its owner; no new exclusive fill is granted over it`, 'order_cancel_pending');
    const dir = await this.deps.pairs.get(chainId);
    if (!dir?.mothership) throw new ServiceUnavailableError(`chain ${chainId} has no mothership configured`, 'network_unavailable');
    const scope = { organizationId, maker: getAddress(maker) };
    await this.assertNoRetake(scope, ids);
    await assertNotFaded(this.deps.db, scope, this.deps.fades, this.clock());
    await assertRoomForRight(this.deps.db, scope, this.deps.fades, this.clock(), null);
    const requirements = await this.bonds.check(
      chainId,
      getAddress(maker),
      orders.map((o) => o.premium_token),
      dir.tokens,
      {},
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
    const row: NewFillRow = {
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
      organization_id: organizationId,
    };
    // Read before the transaction: the re-check under the lock runs on its connection alone.
    const minimums = await this.deps.networks.bondRequirements();
    const createdAt = await this.claim(row, async (m) => {
      // Under the maker's lock: the bond reservation again, so two concurrent requests cannot both spend one bond.
      await new FillBondCheck({ db: m, networks: { bondRequirements: async () => minimums }, oneConnection: true }).check(
        chainId,
        getAddress(maker),
        orders.map((o) => o.premium_token),
        dir.tokens,
        {},
      );
    });
    await this.schedule(id, expireTime * 1000);
    return exclusiveFillView({ ...row, state: 'active', created_at: createdAt, closed_at: null, used_tx_hash: null }, requirements);
  }

  /**
   * A maker whose fill over any of these orders expired unused within the retake cooldown may not
   * take them again: 403 `exclusive_fill_retake_cooldown` with when (else one maker could hold
   * anyone's orders forever by retaking them the moment each fill expired).
   */
  private async assertNoRetake(scope: { organizationId: string | null; maker: Address }, ids: string[]): Promise<void> {
    const cooldown = this.deps.retakeCooldownSeconds;
    if (cooldown === 0) return;
    const last = await this.repo.lastUnusedFillOver(scope, ids, cooldown);
    if (!last) return;
    const until = new Date(last.getTime() + cooldown * 1000);
    const retryAfter = Math.max(1, Math.ceil((until.getTime() - this.clock()) / 1000));
    throw new AppError(
      403,
      'exclusive_fill_retake_cooldown',
      `an exclusive fill of this maker's organization over these orders expired unused at ${last.toISOString()}; it may take them again from ${until.toISOString()}`,
      [{ path: 'order_ids', message: `held before and left unused; retake allowed from ${until.toISOString()}` }],
      { 'Retry-After': String(retryAfter) },
      { retake_allowed_at: until.toISOString() },
    );
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
  private async claim(row: NewFillRow, recheck: (m: EntityManager) => Promise<unknown>): Promise<Date> {
    return this.deps.db.transaction(async (m) => {
      await lockMakerRights(m, row.maker);
      await recheck(m);
      const locked = await lockOrders(m, row.order_ids);
      for (const o of locked) {
        if (o.state !== 'open') throw new ConflictError(`order ${o.id} is ${o.state}; only open orders can be filled`, 'order_not_open');
        if (o.cancel_pending)
          throw new ConflictError(`order ${o.id} is being cancelled by its owner; no new exclusive fill is granted over it`, 'order_cancel_pending');
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
