import type { DataSource } from 'typeorm';
import { AppError, type FieldProblem } from '../errors';
import { RegistryService } from '../registry';
import { ChainDataRepository, type StatusRecord } from './chain-data.repository';

export interface NetworkStatusView {
  chain_id: number;
  head: number | null;
  cursor: number | null;
  lag_blocks: number | null;
  lag_seconds: number | null;
  last_synced_at: string | null;
  backfill: boolean;
}

export interface CoreView {
  address: string;
  token0: string;
  token1: string;
  premium_token: string;
  created_block: number;
}

const num = (v: string | null) => (v === null ? null : Number(v));

/** Why a network's indexer cannot be trusted right now, or null when it can. */
function problem(chainId: number, row: StatusRecord | undefined, staleSeconds: number): string | null {
  if (!row) return `indexer has not reported for chain ${chainId}`;
  if (row.age_seconds > staleSeconds) return `indexer has not reported for chain ${chainId} for ${Math.round(row.age_seconds)} s`;
  if (row.state === 'stopped') return `indexer stopped for chain ${chainId}: ${row.last_error ?? 'unknown error'}`;
  if (!row.rpc_ok) return `RPC of chain ${chainId} does not answer${row.last_error ? `: ${row.last_error}` : ''}`;
  return null;
}

/**
 * Indexer health, sync progress and discovered pairs, from the rows the indexer heartbeats.
 * Any network whose indexer is silent, stopped, or cut off from its RPC makes the answer a 503
 * naming each such network: serving lagging data as current would be worse.
 */
export class IndexerStatusService {
  private readonly repo: ChainDataRepository;
  private readonly registry: RegistryService;

  constructor(
    ds: DataSource,
    private readonly staleAfterMs: number,
  ) {
    this.repo = new ChainDataRepository(ds);
    this.registry = new RegistryService(ds);
  }

  /** Enabled chain ids, or just `chainId` after checking it is one (400 otherwise). */
  async chainIds(chainId?: number): Promise<number[]> {
    if (chainId !== undefined) {
      await this.registry.requireNetwork(chainId);
      return [chainId];
    }
    return (await this.registry.networks()).networks.map((n) => n.chain_id);
  }

  private async healthy(chainIds: number[]): Promise<Map<number, StatusRecord>> {
    const rows = new Map((await this.repo.statuses(chainIds)).map((r) => [r.chain_id, r]));
    const details: FieldProblem[] = [];
    for (const id of chainIds) {
      const p = problem(id, rows.get(id), this.staleAfterMs / 1000);
      if (p) details.push({ path: `networks.${id}`, message: p });
    }
    if (details.length > 0) {
      throw new AppError(503, 'indexer_unavailable', `indexer unavailable: ${details.map((d) => d.message).join('; ')}`, details, { 'Retry-After': '5' });
    }
    return rows;
  }

  async status(chainId?: number): Promise<{ networks: NetworkStatusView[] }> {
    const ids = await this.chainIds(chainId);
    const rows = await this.healthy(ids);
    return {
      networks: ids.map((id) => {
        const r = rows.get(id)!;
        const head = num(r.head);
        const cursor = num(r.cursor);
        const headTs = num(r.head_timestamp);
        const cursorTs = num(r.cursor_timestamp);
        return {
          chain_id: id,
          head,
          cursor,
          lag_blocks: head !== null && cursor !== null ? Math.max(0, head - cursor) : null,
          lag_seconds: headTs !== null && cursorTs !== null ? Math.max(0, headTs - cursorTs) : null,
          last_synced_at: r.last_synced_at ? new Date(r.last_synced_at).toISOString() : null,
          backfill: r.state !== 'realtime',
        };
      }),
    };
  }

  async cores(chainId?: number): Promise<{ networks: { chain_id: number; cores: CoreView[] }[] }> {
    const ids = await this.chainIds(chainId);
    await this.healthy(ids);
    const pairs = await this.repo.pairs(ids);
    return {
      networks: ids.map((id) => ({
        chain_id: id,
        cores: pairs
          .filter((p) => p.chain_id === id)
          .map((p) => ({ address: p.address, token0: p.token0, token1: p.token1, premium_token: p.premium_token, created_block: Number(p.created_block) })),
      })),
    };
  }
}
