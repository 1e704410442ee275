import type { Cluster } from 'ioredis';
import { isLiveMaster, keySlot, ownsSlot, parseClusterNodes, tagForSlot, type ClusterNode } from './cluster-slots';
import { luaScript } from './lua-scripts';

/** Why a master of a cluster is found to have lost data while the epoch key (on another master) did not. */
export type ShardLossReason =
  /** Its marker is gone: FLUSHALL/FLUSHDB on that master, a restart without persistence, an eviction. */
  | 'shard_flushed'
  /**
   * Its marker is now served by another node that was not serving it through a slot migration:
   * a replica promoted in its place. Replication is asynchronous, so the replica may lack writes
   * the old master acknowledged; nothing outside can tell, so it counts as a loss.
   */
  | 'master_failed_over'
  /** Its marker's heartbeat went backwards on the same node: writes it had acknowledged are gone. */
  | 'writes_rolled_back';

export interface ShardFinding {
  reason: ShardLossReason;
  /** The slot of the marker that showed it, and the node serving it now (`host:port`, or its id). */
  slot: number;
  node: string;
}

/** One marker as a check read it. */
export interface MarkerRead {
  slot: number;
  exists: boolean;
  beat: number;
  /** The node that answered (CLUSTER MYID, read inside the script). */
  me: string;
  /** The node the marker says served it at the last check ('' for a marker just made). */
  was: string;
}

/** Reads (or makes) one master's marker and beats it (lua/shard-marker-1.lua). */
const MARK = luaScript('shard-marker');

/** Lists the marker slots in the epoch key while it is that epoch (lua/shard-markers-register-1.lua). */
const REGISTER = luaScript('shard-markers-register');

/**
 * Per-master loss detection on a Redis Cluster (docs/FAULTS.md, "Redis data loss").
 *
 * The epoch key lives in one slot, so it says nothing of the other masters. Each master therefore
 * holds a marker, a small hash under a hash tag chosen to land in a slot it serves
 * (`redis:epoch:shard:{<tag>}`), listed in the epoch key (`marker:<slot>` fields) so that every
 * process, even one started after the loss, knows it must exist. Each check reads every marker,
 * in a script that also answers the serving node's id:
 *
 * - a listed (or already seen) marker missing is a master that lost its data (`shard_flushed`);
 * - a marker served by another node than the one it recorded, when that node is not a live
 *   master (the slot did not migrate), is a replica promoted in a failover (`master_failed_over`);
 * - its heartbeat below one this process saw, on the same node, is writes rolled back.
 *
 * The slot map is read from `CLUSTER NODES` at each check, so a master added by resharding gets
 * a marker in one of its slots (a new marker is not a loss), and a migrated slot takes its
 * marker along. The ids of the masters checked are what the event publisher's script compares
 * with the node it runs on: a publish on a master no check has seen yet waits for one.
 */
export class ShardMarkers {
  private known = new Map<number, { beat: number; me: string }>();
  private verified = '-';

  constructor(
    private readonly redis: Cluster,
    private readonly keys: { epoch: string; marker: (tag: string) => string },
  ) {}

  /** The marker key living in `slot`. */
  markerKey(slot: number): string {
    return this.keys.marker(tagForSlot(slot));
  }

  /** Ids of the masters every marker was found intact on at the last check, comma-joined; '-' before one. */
  get verifiedMasters(): string {
    return this.verified;
  }

  /** Forgets what earlier checks saw: a new epoch starts the markers' record again. */
  forget(): void {
    this.known.clear();
    this.verified = '-';
  }

  /**
   * The marker on the master that serves `key` in the client's slot map, among those this process
   * knows; null when none is known there (the caller then checks every master).
   */
  markerFor(key: string): string | null {
    const owner = this.redis.slots[keySlot(key)]?.[0];
    if (owner === undefined) return null;
    for (const slot of this.known.keys()) if (this.redis.slots[slot]?.[0] === owner) return this.markerKey(slot);
    return null;
  }

  /**
   * Reads every marker (making one for each master that has none listed) and says what is wrong,
   * if anything. Changes nothing this process remembers: `accept` does, once the caller has
   * handled what was found.
   */
  async inspect(): Promise<{ finding: ShardFinding | null; reads: MarkerRead[]; live: ClusterNode[] }> {
    const nodes = parseClusterNodes(await this.clusterNodes());
    const live = nodes.filter(isLiveMaster);
    const listed = new Set(
      Object.keys(await this.redis.hgetall(this.keys.epoch))
        .filter((f) => f.startsWith('marker:'))
        .map((f) => Number(f.slice('marker:'.length))),
    );
    const watched = new Set([...listed, ...this.known.keys()]);
    const make = new Set<number>();
    for (const m of live) if (![...watched].some((s) => ownsSlot(m, s))) make.add(m.slots[0][0]);

    const reads = await Promise.all(
      [...watched, ...make].map(async (slot): Promise<MarkerRead> => {
        const [exists, beat, me, was] = (await MARK.run(this.redis, [this.markerKey(slot)], [make.has(slot) ? '1' : '0'])) as [number, number, string, string];
        return { slot, exists: exists === 1, beat, me, was };
      }),
    );
    return { finding: this.judge(reads, nodes), reads, live };
  }

  /**
   * Takes what `inspect` read as the state to compare the next check with: records each marker's
   * serving node in it, lists every marker in the epoch key (when it is still `epoch`), and lets
   * publishes through on the live masters.
   */
  async accept(inspected: { reads: MarkerRead[]; live: ClusterNode[] }, epoch: number): Promise<void> {
    const present = inspected.reads.filter((r) => r.exists);
    await Promise.all(present.filter((r) => r.was !== r.me).map((r) => this.redis.hset(this.markerKey(r.slot), 'master', r.me)));
    if (present.length > 0) await REGISTER.run(this.redis, [this.keys.epoch], [epoch, ...present.map((r) => r.slot)]);
    this.known = new Map(present.map((r) => [r.slot, { beat: r.beat, me: r.me }]));
    const ids = new Set([...present.map((r) => r.me), ...inspected.live.map((m) => m.id)]);
    this.verified = ids.size > 0 ? [...ids].join(',') : '-';
  }

  /** `CLUSTER NODES` from the first master that answers (the client may still list one that failed). */
  private async clusterNodes(): Promise<string> {
    let last: unknown = new Error('no Redis Cluster master known');
    for (const node of this.redis.nodes('master')) {
      try {
        return String(await node.cluster('NODES'));
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  private judge(reads: MarkerRead[], nodes: ClusterNode[]): ShardFinding | null {
    const where = (id: string) => nodes.find((n) => n.id === id)?.address ?? id;
    for (const r of reads) {
      const seen = this.known.get(r.slot);
      if (!r.exists) return { reason: 'shard_flushed', slot: r.slot, node: where(r.me) };
      if (r.was !== '' && r.was !== r.me) {
        // Served by another node than the one it recorded. The map read must already say so: a
        // node that has not yet heard of the change tells nothing about it (the next check reads again).
        const owner = nodes.find((n) => isLiveMaster(n) && ownsSlot(n, r.slot));
        if (owner?.id !== r.me) throw new Error(`slot ${r.slot} moved to ${where(r.me)}, which the slot map read does not show yet`);
        // A migration leaves the old master serving, unsuspected; a failover leaves it failed
        // (fail, or suspected: fail?), demoted to a replica, or gone.
        const old = nodes.find((n) => n.id === r.was);
        const migrated = old !== undefined && old.flags.includes('master') && !old.flags.some((f) => f.startsWith('fail')) && old.slots.length > 0;
        if (!migrated) return { reason: 'master_failed_over', slot: r.slot, node: where(r.me) };
      }
      if (seen && seen.me === r.me && r.beat <= seen.beat) return { reason: 'writes_rolled_back', slot: r.slot, node: where(r.me) };
    }
    return null;
  }
}
