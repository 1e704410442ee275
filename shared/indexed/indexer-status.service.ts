import type { DataSource } from 'typeorm';
import { AppError, type FieldProblem } from '../platform/errors';
import { NetworksService } from '../networks';
import { IndexedDataRepository, type CursorRecord, type KeptBlocksRecord, type ReorgStatsRecord, type StatusRecord } from './indexed-data.repository';
import type { AuditState, ProviderState } from './indexer-checks';
import { INDEXER_ERROR_CODES, isIndexerErrorCode } from './indexer-error-codes';
import { networkPairs } from './network-pairs';

/** Why a network's entry is unhealthy: a fixed code and fixed words (never raw RPC or driver text). */
export interface NetworkProblem {
  code: string;
  message: string;
}

export interface NetworkStatusView {
  chain_id: number;
  healthy: boolean;
  /** `starting`, `backfill`, `realtime`, or `halted` (a reorg beyond the hard limit, a wrong chain...: see `action`). */
  state: 'starting' | 'backfill' | 'realtime' | 'halted' | 'unknown';
  problem: NetworkProblem | null;
  /** When halted: the operator command that resumes the network. */
  action: string | null;
  head: number | null;
  cursor: number | null;
  /** The newest block the network's `confirmations` report as final. */
  finalized_block: number | null;
  lag_blocks: number | null;
  lag_seconds: number | null;
  last_synced_at: string | null;
  backfill: boolean;
  /** Every cursor the indexer keeps for the network (one per contract set). */
  cursors: { contract_set: string; block_number: number; block_hash: string | null; start_block: number | null; updated_at: string }[];
  /** Block hashes kept for reorgs: the linked window and the oldest checkpoint below it. */
  blocks_kept: { window_from: number | null; window_to: number | null; window_blocks: number; oldest_checkpoint: number | null };
  reorgs: { count: number; deepest: number; last: { at: string; depth: number; ancestor_block: number; orphaned_tip: number | null } | null };
  /** What the network's RPC providers did wrong lately, per URL (null before the indexer reported it). */
  provider: ProviderState | null;
  /** The standing audit's progress and the last difference it found. */
  audit: AuditState | null;
}

export interface CoreView {
  address: string;
  token0: string | null;
  token1: string | null;
  premium_token: string | null;
  /** Block of the factory's PairCreated; null for a pair only the networks table names. */
  created_block: number | null;
  /** Found through the factory's events by the indexer. */
  discovered: boolean;
  /** Named by the network's entry (quote creation accepts these too). */
  registered: boolean;
}

const num = (v: string | null) => (v === null ? null : Number(v));

/** Why a network's indexer cannot be trusted right now, or null when it can. Fixed words only. */
function problem(chainId: number, row: StatusRecord | undefined, staleSeconds: number): NetworkProblem | null {
  if (!row) return { code: 'indexer_silent', message: `indexer has not reported for chain ${chainId}` };
  if (row.age_seconds > staleSeconds)
    return { code: 'indexer_silent', message: `indexer has not reported for chain ${chainId} for ${Math.round(row.age_seconds)} s` };
  if (row.state === 'stopped') {
    const code = isIndexerErrorCode(row.error_code) ? row.error_code : 'internal';
    // The action is the indexer's own fixed sentence (a command with two numbers), never error text.
    const action = row.action ? `; to resume, run: ${row.action}` : '';
    return { code, message: `indexer halted for chain ${chainId}: ${INDEXER_ERROR_CODES[code]}${action}` };
  }
  if (!row.rpc_ok) return { code: 'rpc_unavailable', message: `RPC of chain ${chainId} does not answer` };
  return null;
}

function stateOf(row: StatusRecord | undefined): NetworkStatusView['state'] {
  if (!row) return 'unknown';
  return row.state === 'stopped' ? 'halted' : row.state;
}

/**
 * Indexer health, sync progress, reorgs and pairs, from the rows the indexer writes. Each
 * network's entry says whether it is healthy; one silent, halted or RPC-less network does not
 * hide the others. The answer is a 503 only when the network asked for (`?chain_id=`) is
 * unhealthy, or every enabled network is: serving lagging data as current would be worse.
 */
export class IndexerStatusService {
  private readonly repo: IndexedDataRepository;
  private readonly networks: NetworksService;

  constructor(
    ds: DataSource,
    private readonly staleAfterMs: number,
  ) {
    this.repo = new IndexedDataRepository(ds);
    this.networks = new NetworksService(ds);
  }

  /** Enabled networks, or just `chainId` after checking it is one (400 otherwise). */
  private async enabledNetworks(chainId?: number): Promise<{ chain_id: number; confirmations: number; contracts: Record<string, string> }[]> {
    if (chainId !== undefined) return [await this.networks.requireNetwork(chainId)];
    return (await this.networks.allNetworks()).filter((n) => n.enabled);
  }

  /** Health of each network; throws the 503 when the asked network, or every network, is down. */
  private async health(chainIds: number[]): Promise<{ rows: Map<number, StatusRecord>; problems: Map<number, NetworkProblem> }> {
    const rows = new Map((await this.repo.statuses(chainIds)).map((r) => [r.chain_id, r]));
    const problems = new Map<number, NetworkProblem>();
    for (const id of chainIds) {
      const p = problem(id, rows.get(id), this.staleAfterMs / 1000);
      if (p) problems.set(id, p);
    }
    if (chainIds.length > 0 && problems.size === chainIds.length) {
      const details: FieldProblem[] = [...problems].map(([id, p]) => ({ path: `networks.${id}`, message: p.message }));
      throw new AppError(503, 'indexer_unavailable', `indexer unavailable: ${details.map((d) => d.message).join('; ')}`, details, { 'Retry-After': '5' });
    }
    return { rows, problems };
  }

  async status(chainId?: number): Promise<{ networks: NetworkStatusView[] }> {
    const networks = await this.enabledNetworks(chainId);
    const ids = networks.map((n) => n.chain_id);
    const { rows, problems } = await this.health(ids);
    const [cursors, kept, reorgs] = await Promise.all([this.repo.cursors(ids), this.repo.keptBlocks(ids), this.repo.reorgStats(ids)]);
    return {
      networks: networks.map((n) => {
        const id = n.chain_id;
        const r = rows.get(id);
        const head = num(r?.head ?? null);
        const cursor = num(r?.cursor ?? null);
        const headTs = num(r?.head_timestamp ?? null);
        const cursorTs = num(r?.cursor_timestamp ?? null);
        const p = problems.get(id) ?? null;
        return {
          chain_id: id,
          healthy: p === null,
          state: stateOf(r),
          problem: p,
          action: r?.state === 'stopped' ? r.action : null,
          head,
          cursor,
          finalized_block: head === null ? null : Math.max(-1, head - n.confirmations),
          lag_blocks: head !== null && cursor !== null ? Math.max(0, head - cursor) : null,
          lag_seconds: headTs !== null && cursorTs !== null ? Math.max(0, headTs - cursorTs) : null,
          last_synced_at: r?.last_synced_at ? new Date(r.last_synced_at).toISOString() : null,
          backfill: r?.state !== 'realtime',
          cursors: cursors.filter((c) => c.chain_id === id).map(cursorView),
          blocks_kept: keptView(kept.find((k) => k.chain_id === id)),
          reorgs: reorgView(reorgs.find((s) => s.chain_id === id)),
          provider: r?.provider ?? null,
          audit: r?.audit ?? null,
        };
      }),
    };
  }

  /**
   * Pairs of each network: those the indexer discovered through the factory and those the
   * networks table names (quote creation accepts both), once each.
   */
  async cores(chainId?: number): Promise<{ networks: { chain_id: number; healthy: boolean; cores: CoreView[] }[] }> {
    const networks = await this.enabledNetworks(chainId);
    const ids = networks.map((n) => n.chain_id);
    const { problems } = await this.health(ids);
    const pairs = await this.repo.pairs(ids);
    return {
      networks: networks.map((n) => {
        const registered = new Set(networkPairs(n.contracts).map((a) => a.toLowerCase()));
        const cores: CoreView[] = pairs
          .filter((p) => p.chain_id === n.chain_id)
          .map((p) => ({
            address: p.address,
            token0: p.token0,
            token1: p.token1,
            premium_token: p.premium_token,
            created_block: Number(p.created_block),
            discovered: true,
            registered: registered.delete(p.address.toLowerCase()),
          }));
        for (const address of networkPairs(n.contracts).filter((a) => registered.has(a.toLowerCase()))) {
          cores.push({ address, token0: null, token1: null, premium_token: null, created_block: null, discovered: false, registered: true });
        }
        return { chain_id: n.chain_id, healthy: !problems.has(n.chain_id), cores };
      }),
    };
  }
}

function cursorView(c: CursorRecord): NetworkStatusView['cursors'][number] {
  return {
    contract_set: c.contract_set,
    block_number: Number(c.block_number),
    block_hash: c.block_hash,
    start_block: num(c.start_block),
    updated_at: new Date(c.updated_at).toISOString(),
  };
}

function keptView(k: KeptBlocksRecord | undefined): NetworkStatusView['blocks_kept'] {
  return {
    window_from: num(k?.window_from ?? null),
    window_to: num(k?.window_to ?? null),
    window_blocks: k?.window_blocks ?? 0,
    oldest_checkpoint: num(k?.oldest_checkpoint ?? null),
  };
}

function reorgView(s: ReorgStatsRecord | undefined): NetworkStatusView['reorgs'] {
  if (!s || s.last_at === null) return { count: s?.reorgs ?? 0, deepest: s?.deepest ?? 0, last: null };
  return {
    count: s.reorgs,
    deepest: s.deepest,
    last: {
      at: new Date(s.last_at).toISOString(),
      depth: s.last_depth ?? 0,
      ancestor_block: Number(s.last_ancestor_block),
      orphaned_tip: num(s.last_orphaned_tip),
    },
  };
}
