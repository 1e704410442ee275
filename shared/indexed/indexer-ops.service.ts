import type { DataSource } from 'typeorm';
import { AppError, BadRequestError, NotFoundError } from '../platform/errors';
import { NetworksService } from '../networks';
import { IndexedDataRepository } from './indexed-data.repository';
import { ResyncRequestRepository, type ResyncRequest } from './resync-requests.repository';

/** One network as an operator sees it: raw failure text included (this never leaves the operator's terminal). */
export interface OperatorNetworkReport {
  chain_id: number;
  name: string;
  enabled: boolean;
  confirmations: number;
  status: {
    state: string;
    head: number | null;
    cursor: number | null;
    rpc_ok: boolean;
    error_code: string | null;
    last_error: string | null;
    action: string | null;
    heartbeat_age_seconds: number;
  } | null;
  cursors: { contract_set: string; block_number: number; block_hash: string | null; start_block: number | null; updated_at: string }[];
  blocks_kept: { window_from: number | null; window_to: number | null; window_blocks: number; oldest_checkpoint: number | null };
  reorgs: { count: number; deepest: number; last_depth: number | null; last_ancestor_block: number | null; last_at: string | null };
  resync_requests: ResyncRequest[];
}

const num = (v: string | null | undefined) => (v === null || v === undefined ? null : Number(v));

/**
 * What `npm run ops -- indexer:status` and `indexer:resync` do. A resync is a request row the
 * network's tailer serves between two of its steps (rolling back in one transaction and
 * re-syncing forward): the command never touches the indexer's tables or process itself, so it
 * is safe while the indexer runs, and a request made while it is down waits for it.
 */
export class IndexerOpsService {
  private readonly repo: IndexedDataRepository;
  private readonly networks: NetworksService;
  private readonly requests: ResyncRequestRepository;

  constructor(ds: DataSource) {
    this.repo = new IndexedDataRepository(ds);
    this.networks = new NetworksService(ds);
    this.requests = new ResyncRequestRepository(ds);
  }

  async report(chainId?: number): Promise<{ networks: OperatorNetworkReport[] }> {
    const all = await this.networks.allNetworks();
    const networks = chainId === undefined ? all : all.filter((n) => n.chain_id === chainId);
    if (chainId !== undefined && networks.length === 0)
      throw new NotFoundError(`network ${chainId} is not a known network (npm run ops -- network:list)`, 'network_not_found');
    const ids = networks.map((n) => n.chain_id);
    const [statuses, cursors, kept, reorgs, requests] = await Promise.all([
      this.repo.statuses(ids),
      this.repo.cursors(ids),
      this.repo.keptBlocks(ids),
      this.repo.reorgStats(ids),
      this.requests.recent(ids, 5),
    ]);
    return {
      networks: networks.map((n) => {
        const s = statuses.find((r) => r.chain_id === n.chain_id);
        const k = kept.find((r) => r.chain_id === n.chain_id);
        const r = reorgs.find((x) => x.chain_id === n.chain_id);
        return {
          chain_id: n.chain_id,
          name: n.name,
          enabled: n.enabled,
          confirmations: n.confirmations,
          status: s
            ? {
                state: s.state,
                head: num(s.head),
                cursor: num(s.cursor),
                rpc_ok: s.rpc_ok,
                error_code: s.error_code,
                last_error: s.last_error,
                action: s.action,
                heartbeat_age_seconds: Math.round(s.age_seconds * 10) / 10,
              }
            : null,
          cursors: cursors
            .filter((c) => c.chain_id === n.chain_id)
            .map((c) => ({
              contract_set: c.contract_set,
              block_number: Number(c.block_number),
              block_hash: c.block_hash,
              start_block: num(c.start_block),
              updated_at: new Date(c.updated_at).toISOString(),
            })),
          blocks_kept: {
            window_from: num(k?.window_from),
            window_to: num(k?.window_to),
            window_blocks: k?.window_blocks ?? 0,
            oldest_checkpoint: num(k?.oldest_checkpoint),
          },
          reorgs: {
            count: r?.reorgs ?? 0,
            deepest: r?.deepest ?? 0,
            last_depth: r?.last_depth ?? null,
            last_ancestor_block: num(r?.last_ancestor_block),
            last_at: r?.last_at ? new Date(r.last_at).toISOString() : null,
          },
          resync_requests: requests.filter((q) => q.chain_id === n.chain_id),
        };
      }),
    };
  }

  /**
   * Asks the network's tailer to roll back to `fromBlock - 1` and re-sync from `fromBlock`.
   * Refused when the network is unknown, never indexed, or not indexed as far as `fromBlock`
   * (nothing there to redo).
   */
  async requestResync(chainId: number, fromBlock: number): Promise<ResyncRequest> {
    const network = await this.networks.network(chainId);
    if (!network) throw new NotFoundError(`network ${chainId} is not a known network (npm run ops -- network:list)`, 'network_not_found');
    const cursors = await this.repo.cursors([chainId]);
    if (cursors.length === 0) throw new BadRequestError(`network ${chainId} has not been indexed yet: nothing to resync`, 'not_indexed');
    const indexedTo = Math.max(...cursors.map((c) => Number(c.block_number)));
    if (fromBlock > indexedTo) {
      throw new BadRequestError(
        `network ${chainId} is indexed up to block ${indexedTo}: --from-block ${fromBlock} is above it, nothing to roll back`,
        'nothing_to_resync',
      );
    }
    return this.requests.create(chainId, fromBlock);
  }

  /**
   * Waits until a tailer has served the request, polling every `pollMs`. Throws (503) when none
   * did within `timeoutMs`: the request stays pending and is served when the indexer runs.
   */
  async awaitResync(id: number, timeoutMs: number, pollMs = 100): Promise<ResyncRequest> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.requests.get(id);
      if (!r) throw new NotFoundError(`resync request ${id} vanished (its network was removed from the networks?)`, 'resync_not_found');
      if (r.state === 'done') return r;
      if (Date.now() >= until) {
        throw new AppError(
          503,
          'resync_pending',
          `no indexer served resync request ${id} of chain ${r.chain_id} within ${Math.round(timeoutMs / 1000)} s; it stays pending and runs as soon as the indexer of that network is up (check it with npm run ops -- indexer:status)`,
        );
      }
      await new Promise((res) => setTimeout(res, pollMs));
    }
  }
}
