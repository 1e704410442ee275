import IORedis from 'ioredis';
import { isLiveMaster, ownsSlot, parseClusterNodes, type ClusterNode } from '../../shared/platform/redis';
import type { ClusterNodeProcess, TestRedisCluster } from './redis-cluster';

/** A connection to one node of a test cluster, outside cluster mode (it answers for its own slots only). */
export function nodeClient(port: number): IORedis {
  const c = new IORedis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 5000, retryStrategy: () => null });
  // A node the test kills ends its connections: the commands on them fail, which is enough.
  c.on('error', () => undefined);
  return c;
}

/** Runs `fn` on a fresh connection to `port` and closes it. */
export async function onNode<T>(port: number, fn: (c: IORedis) => Promise<T>): Promise<T> {
  const c = nodeClient(port);
  try {
    return await fn(c);
  } finally {
    c.disconnect();
  }
}

/** The cluster as the first node of `cluster` that answers sees it. */
export async function clusterView(cluster: TestRedisCluster, except: number[] = []): Promise<ClusterNode[]> {
  for (const n of cluster.nodes) {
    if (except.includes(n.port)) continue;
    const text = await onNode(n.port, async (c) => String(await c.cluster('NODES'))).catch(() => null);
    if (text !== null) return parseClusterNodes(text);
  }
  throw new Error('no node of the cluster answered CLUSTER NODES');
}

export const portOf = (n: ClusterNode): number => Number(n.address.split(':').pop());

/** The live master serving `slot` and its replicas. */
export async function shardOf(cluster: TestRedisCluster, slot: number, except: number[] = []): Promise<{ master: ClusterNode; replicas: ClusterNode[] }> {
  const view = await clusterView(cluster, except);
  const master = view.find((n) => isLiveMaster(n) && ownsSlot(n, slot));
  if (!master) throw new Error(`no live master serves slot ${slot}`);
  return { master, replicas: view.filter((n) => n.masterId === master.id && !n.flags.includes('fail')) };
}

/**
 * The shard serving `slot` once it has a replica fit to take over: listed without a failure flag
 * and with its replication link up. On a busy machine a replica can be flagged failing for a
 * moment (cluster-node-timeout is short here) or still be syncing after an earlier fault; a
 * failover test that started then would have no replica to promote.
 */
export async function shardWithReplica(cluster: TestRedisCluster, slot: number, timeoutMs = 60_000): Promise<{ master: ClusterNode; replicas: ClusterNode[] }> {
  let found: { master: ClusterNode; replicas: ClusterNode[] } | null = null;
  await waitUntil(
    async () => {
      const shard = await shardOf(cluster, slot);
      const linked = [];
      for (const r of shard.replicas) {
        if (r.flags.some((f) => f.startsWith('fail'))) continue;
        const info = await onNode(portOf(r), async (c) => String(await c.info('replication')));
        if (/master_link_status:up/.test(info)) linked.push(r);
      }
      if (linked.length === 0) return false;
      found = { master: shard.master, replicas: linked };
      return true;
    },
    timeoutMs,
    `a replica of the master serving slot ${slot} with its link up`,
  );
  return found!;
}

/** What a lossy failover left: the probe key's value on the master just before it died, and on the replica that took over. */
export interface LostWrites {
  onMaster: number;
  onReplica: number;
}

/**
 * Kills a master so that the replica taking over certainly lacks writes the master acknowledged,
 * as asynchronous replication allows and a crash right after a burst of writes produces now and
 * then. Left to chance, a replica on this machine is usually fully caught up within a millisecond,
 * so the test makes the lag certain instead:
 *
 * 1. once the replica has acknowledged everything so far (`WAIT`), it is paused (SIGSTOP), so it
 *    can neither read nor reconnect;
 * 2. the master drops its replication link (`CLIENT KILL TYPE replica`): what it had already
 *    handed to the kernel still reaches the replica, and nothing it writes from now on does;
 * 3. `burst` runs (it returns once the service has written what the test wants lost);
 * 4. the probe key is read on the master, then the master is SIGKILLed;
 * 5. the replica resumes, reads what was buffered up to the cut and the end of the link, and is
 *    promoted by the cluster's own failover once the master is seen failing (cluster-node-timeout).
 *
 * Answers the probe key's value on the master before the kill and on the replica once it has
 * read all it will ever get (its link seen down): `onReplica < onMaster` is the proof of the loss.
 */
export async function failoverLosingWrites(
  master: ClusterNodeProcess,
  replica: ClusterNodeProcess,
  probeKey: string,
  burst: (readOnMaster: () => Promise<number>) => Promise<void>,
): Promise<LostWrites> {
  const onMaster = nodeClient(master.port);
  const onReplica = nodeClient(replica.port);
  const readOnMaster = async () => Number((await onMaster.get(probeKey)) ?? 0);
  try {
    // Caught up first: what the replica lacks afterwards is what the cut cost, nothing older.
    await waitUntil(async () => Number(await onMaster.call('WAIT', '1', '1000')) >= 1, 60_000, "the replica to acknowledge the master's writes");
    replica.pause();
    let resumed = false;
    try {
      await onMaster.client('KILL', 'TYPE', 'replica');
      await burst(readOnMaster);
      const last = await readOnMaster();
      await master.kill('SIGKILL');
      replica.resume();
      resumed = true;
      // Down: the replica has read the end of its link, so everything the master sent before the cut.
      await waitUntil(async () => /master_link_status:down/.test(await onReplica.info('replication')), 30_000, 'the replica to see its link down');
      await onReplica.call('READONLY');
      return { onMaster: last, onReplica: Number((await onReplica.get(probeKey)) ?? 0) };
    } finally {
      if (!resumed) replica.resume();
    }
  } finally {
    onMaster.disconnect();
    onReplica.disconnect();
  }
}

/** Polls `cond` until it holds; a condition, not a duration. */
export async function waitUntil(cond: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await cond().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
