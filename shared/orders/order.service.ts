import { randomUUID } from 'node:crypto';
import { getAddress, type Address } from 'viem';
import type { DataSource } from 'typeorm';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../platform/errors';
import type { Logger } from '../platform/logging';
import type { Metrics } from '../platform/metrics';
import { orderIntentHash } from '../protocol';
import type { ChainDirectory, PairDirectory } from '../quotes';
import { OrderRepository, type NewOrderRow, type OrderFilter, type PageAfter } from './order.repository';
import { GroupCommit } from '../platform/db/group-commit';
import { orderJson, parseOrderRequest, type OrderRequest } from './order-request';
import { cancelOrder, requestCancel } from './order-state';
import { OrderRecords, recorderKey } from './order-records.repository';
import type { OrderRow } from './order.types';
import { orderView, type OrderView } from './order.views';
import { PremiumTokens } from './premium-tokens';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Recording, reading and cancelling CLOB orders (docs/ORDERS.md). Workers expire them; the indexer fills them. */
export class OrderService {
  readonly repo: OrderRepository;
  readonly premiumTokens: PremiumTokens;
  /** Concurrent creates commit together; each 201 still follows its own order's commit. */
  private readonly inserts: GroupCommit<NewOrderRow, Date | null>;

  constructor(
    private readonly deps: {
      db: DataSource;
      logger: Logger;
      metrics: Metrics;
      pairs: PairDirectory;
      maxHorizonSeconds: number;
      /** Most unconfirmed records per owner and per client IP bucket (ORDER_UNCONFIRMED_PER_OWNER, ORDER_UNCONFIRMED_PER_IP). */
      caps: { perOwner: number; perIp: number };
    },
    private readonly clock: () => number = Date.now,
  ) {
    this.repo = new OrderRepository(deps.db);
    this.premiumTokens = new PremiumTokens(this.repo);
    this.inserts = new GroupCommit({
      many: async (rs) => this.trimmed(rs, await this.repo.insertOrders(rs)),
      one: async (r) => (await this.trimmed([r], [await this.repo.insertOrder(r)]))[0],
    });
  }

  /**
   * Validates and records an order for `destination.from`. With a bearer (`wallet`), that must
   * be the bearer's wallet: an order recorded by anyone else is still inert until its owner
   * places it on chain, but a signed-in caller should not be able to record for others.
   * Recording reserves nothing: the nonce stays free for every other record of the owner, and
   * the same intent recorded twice answers the first record (`created: false`). The owner's own
   * credential (`ownCredential`: its SIWE session or maker key) marks the record
   * `recorded_by_owner`, which puts it in the owner's lists. Any other record is unconfirmed: it
   * gets no job, and counts toward the caps of its owner and of `ipBucket`, the caller's client
   * IP bucket (the oldest beyond a cap are deleted), until retention deletes it.
   */
  async create(body: unknown, by: { wallet: Address | null; ownCredential: boolean; ipBucket: string }): Promise<{ created: boolean; order: OrderView }> {
    const { wallet } = by;
    const req = parseOrderRequest(body, Math.floor(this.clock() / 1000), this.deps.maxHorizonSeconds);
    const dir = await this.deps.pairs.get(req.chain_id);
    if (!dir) throw ValidationError.field('chain_id', `unknown chain ${req.chain_id}: see GET /api/networks`);
    checkContracts(req, dir);
    const i = req.intent;
    if (wallet && getAddress(wallet) !== i.from) {
      throw new ForbiddenError(`destination.from ${i.from} is not the authenticated wallet ${getAddress(wallet)}`, 'order_owner_mismatch');
    }
    const byOwner = wallet !== null && by.ownCredential;
    const premiumToken = await this.premiumTokens.of(dir, i.options6909Contract);
    // Stored in the forms sent: a JSON integer cannot be told from its string once parsed.
    const json = orderJson(i, req.forms);
    const expiresAt = new Date((i.orderOnExpiry === 1 ? i.expiryTimestamp : i.intentExpiry) * 1000);
    const row = {
      id: randomUUID(),
      chain_id: req.chain_id,
      owner_address: i.from,
      pair: i.options6909Contract,
      premium_token: premiumToken,
      nonce_prefix: i.noncePrefix.toString(),
      nonce: i.nonce.toString(),
      amount: json.amount,
      intent_hash: orderIntentHash(i),
      destination: json.destination,
      data: json.data,
      expires_at: expiresAt,
      recorded_by_owner: byOwner,
      recorder_ip: byOwner ? null : recorderKey(by.ipBucket),
    };
    const createdAt = await this.inserts.write(row);
    if (!createdAt) {
      // The very same intent is recorded already: that record is this order.
      const same = await this.repo.findByIntent(req.chain_id, row.intent_hash, byOwner);
      if (!same) throw new Error(`order intent ${row.intent_hash} conflicted but is not recorded`);
      return { created: false, order: orderView(same.order, same.onChain) };
    }
    const stored: OrderRow = {
      ...row,
      state: 'open',
      exclusive_fill_id: null,
      created_at: createdAt,
      closed_at: null,
      fill_tx_hash: null,
      cancel_requested_at: null,
    };
    return { created: true, order: orderView(stored, null) };
  }

  /**
   * After a batch of records committed: the oldest unconfirmed records beyond the caps of the
   * batch's owners and IP buckets go. A failure here is logged, never the create's: the next
   * record of that owner or IP trims again, and retention bounds what is left meanwhile.
   */
  private async trimmed<R>(rows: NewOrderRow[], results: R[]): Promise<R[]> {
    const unconfirmed = rows.filter((r, i) => !r.recorded_by_owner && results[i] !== null);
    if (unconfirmed.length === 0) return results;
    const owners = [...new Set(unconfirmed.map((r) => r.owner_address))];
    const ips = [...new Set(unconfirmed.flatMap((r) => (r.recorder_ip ? [r.recorder_ip] : [])))];
    try {
      const evicted = await new OrderRecords(this.deps.db).trim(owners, ips, this.deps.caps);
      const counter = this.deps.metrics.counter(
        'rfq_order_records_evicted_total',
        'Unconfirmed order records deleted because a newer one took their place under a cap',
        ['cap'],
      );
      if (evicted.owner > 0) counter.inc({ cap: 'per_owner' }, evicted.owner);
      if (evicted.ip > 0) counter.inc({ cap: 'per_ip' }, evicted.ip);
    } catch (err) {
      this.deps.logger.error({ err: (err as Error).message }, 'trimming unconfirmed order records failed; the next record of that owner or IP trims again');
    }
    return results;
  }

  async get(id: string): Promise<OrderView> {
    const found = UUID.test(id) ? await this.repo.findOrder(id) : null;
    if (!found) throw new NotFoundError(`order ${id} not found`, 'order_not_found');
    return orderView(found.order, found.onChain);
  }

  /** One page of orders, newest first; `cursor` is the previous page's next_cursor. */
  async list(f: OrderFilter, cursor: string | undefined, limit: number): Promise<{ items: OrderView[]; next_cursor: string | null }> {
    const after = cursor === undefined ? null : decodeCursor(cursor);
    const rows = await this.repo.list({ ...f, owner: f.owner ? getAddress(f.owner) : undefined }, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1]?.order;
    return {
      items: page.map((r) => orderView(r.order, r.onChain)),
      next_cursor: rows.length > limit && last ? encodeCursor({ created_at: new Date(last.created_at).toISOString(), id: last.id }) : null,
    };
  }

  /**
   * The owner records its intent to cancel: the order leaves the API (no exclusive fill can
   * cover it). A book order already placed on chain stays there until the owner calls the
   * pair's cancelOrder: the API cannot move anyone's order on chain.
   */
  async cancel(id: string, wallet: Address): Promise<OrderView> {
    const o = UUID.test(id) ? (await this.repo.findOrder(id))?.order : null;
    if (!o) throw new NotFoundError(`order ${id} not found`, 'order_not_found');
    if (o.owner_address !== getAddress(wallet)) {
      throw new ForbiddenError(`order ${id} belongs to ${o.owner_address}, not to the authenticated wallet ${getAddress(wallet)}`, 'not_order_owner');
    }
    if (o.state !== 'open') throw new ConflictError(`order ${id} is ${o.state}; only an open order can be cancelled`, `order_${o.state}`);
    if (!(await cancelOrder(this.deps.db, id))) {
      // Held by a live exclusive fill: the cancel is recorded now and applied when the fill ends.
      if (await requestCancel(this.deps.db, id)) return this.get(id);
      const now = (await this.repo.findOrder(id))?.order;
      if (now && now.state === 'open') {
        throw new ConflictError(`order ${id} is under an active exclusive fill; cancel it after the fill expires`, 'order_under_exclusive_fill');
      }
      throw new ConflictError(`order ${id} is ${now?.state ?? o.state}; only an open order can be cancelled`, `order_${now?.state ?? o.state}`);
    }
    return this.get(id);
  }
}

/** The pair must be a known CLOB of the chain (a token gets an error that says so); `to` that CLOB or the mothership. */
function checkContracts(req: OrderRequest, dir: ChainDirectory): void {
  const { options6909Contract: pair, to } = req.intent;
  const token = dir.tokens.get(pair);
  if (token) {
    throw ValidationError.field(
      'data.options6909Contract',
      `${pair} is the ${token} token, not a pair: pass the pair (CLOB) contract (GET /api/networks or /api/indexer/cores)`,
    );
  }
  if (!dir.pairs.has(pair)) throw ValidationError.field('data.options6909Contract', `${pair} is not a known pair (CLOB) contract on chain ${req.chain_id}`);
  if (to !== pair && to !== dir.mothership) {
    throw ValidationError.field(
      'destination.to',
      `must be the order's CLOB (data.options6909Contract ${pair}) or the chain's mothership${dir.mothership ? ` (${dir.mothership})` : ''}`,
    );
  }
}

/** Opaque page cursors: the last row's (created_at, id), base64url. */
export function encodeCursor(p: PageAfter): string {
  return Buffer.from(`${p.created_at}|${p.id}`).toString('base64url');
}

/** `created_at` as encodeCursor writes it: ISO 8601 UTC with milliseconds, a real date from 1970 to 9999. */
const CURSOR_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * Reads a cursor back, every member bounded to its column: a time a `timestamptz` holds in the
 * one form this route writes (Postgres and JavaScript read many others differently, or not at
 * all) and a uuid. Anything else is a 400 naming `cursor`.
 */
export function decodeCursor(cursor: string): PageAfter {
  const [createdAt, id, ...rest] = Buffer.from(cursor, 'base64url').toString().split('|');
  const at = createdAt && CURSOR_TIME.test(createdAt) ? Date.parse(createdAt) : NaN;
  const real = !Number.isNaN(at) && at >= 0 && new Date(at).toISOString() === createdAt;
  if (!real || !id || !UUID.test(id) || rest.length > 0) throw ValidationError.field('cursor', 'is not a cursor this route returned');
  return { created_at: createdAt, id };
}
