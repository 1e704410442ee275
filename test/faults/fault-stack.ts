import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { RfqClient as ApiClient } from '../../client/src';
import { hardhatAccounts, localPublicClient, localWalletClient } from '../../shared/chain/clients';
import { devchainNetwork } from '../../dev/devchain';
import { deployReferenceContracts, type DeployedAddresses } from '../../dev/deploy';
import { startHardhatNode, type HardhatNode } from '../../dev/hardhat-node';
import { NetworksService } from '../../shared/networks';
import { startTcpProxy, type TcpProxy } from '../integration/indexer/tcp-proxy';
import { freePort } from '../support/chain';
import { ops } from '../support/ops';
import { spawnService, type RunningService } from '../support/spawn-service';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { startRedisCluster, type RedisClusterOptions, type TestRedisCluster } from '../support/redis-cluster';
import { FeedRecorder } from './feed-recorder';
import { startTestRedis, type TestRedis, type TestRedisOptions } from './redis-server';
import { startTcpBalancer, type TcpBalancer } from './tcp-balancer';

export const CHAIN_ID = 31337;

/** The processes of the stack by name; each name is also its Postgres application_name suffix. */
export type ProcessName = 'api' | 'socket-a' | 'socket-b' | 'workers-a' | 'workers-b' | 'indexer';

const ROLE_OF: Record<ProcessName, { roles: string; ready: { listenMsg: string } | { readyMsg: string } }> = {
  api: { roles: 'api', ready: { listenMsg: 'api listening' } },
  'socket-a': { roles: 'socket', ready: { listenMsg: 'socket attached' } },
  'socket-b': { roles: 'socket', ready: { listenMsg: 'socket attached' } },
  'workers-a': { roles: 'workers', ready: { readyMsg: 'started' } },
  'workers-b': { roles: 'workers', ready: { readyMsg: 'started' } },
  indexer: { roles: 'indexer', ready: { readyMsg: 'started' } },
};
export const PROCESS_NAMES = Object.keys(ROLE_OF) as ProcessName[];

/** Prefix of every service session's application_name: what "the service's sessions" are in Postgres. */
export const APP_NAME_PREFIX = 'faults-';

/**
 * Settings every process of the stack shares. The indexer's timings are shortened so that its
 * recovery happens within a test; nothing else differs from production defaults.
 */
export function sharedEnv(env: TestEnv, redis: { url: string }, jwtSecret: string): Record<string, string> {
  return {
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    DEVCHAIN: 'off',
    MIGRATE_ON_START: 'false',
    DATABASE_CREATE_IF_MISSING: 'false',
    DATABASE_POOL_SIZE: '4',
    REDIS_URL: redis.url,
    REDIS_PREFIX: env.config.REDIS_PREFIX,
    JWT_SECRET: jwtSecret,
    SHUTDOWN_TIMEOUT_MS: '3000',
    // The sweepers keep their production interval (5 s, most of a quote's 6 s window): work lost
    // to a Redis or Postgres outage must be redone by the sweep the reconnection triggers.
    // The whole load comes from 127.0.0.1: the write limits must not be what the faults measure.
    QUOTE_RATE_LIMIT_PER_IP: '1000000',
    QUOTE_RATE_LIMIT_PER_CREDENTIAL: '1000000',
    WRITE_RATE_LIMIT_PER_IP: '1000000',
    WRITE_RATE_LIMIT_PER_CREDENTIAL: '1000000',
    INDEXER_POLL_INTERVAL_MS: '100',
    INDEXER_HEARTBEAT_MS: '200',
    INDEXER_RPC_TIMEOUT_MS: '1000',
    INDEXER_RPC_RETRIES: '1',
    INDEXER_RPC_BACKOFF_MS: '20',
    INDEXER_RPC_BACKOFF_MAX_MS: '300',
    INDEXER_NETWORKS_REFRESH_MS: '1000',
  };
}

/** The stack's Redis: one private server by default, or a private Redis Cluster (`startClusterStack`). */
export interface Stack<R = TestRedis> {
  env: TestEnv;
  redis: R;
  node: HardhatNode;
  addresses: DeployedAddresses;
  /** What the indexer reaches the node through; stopping it refuses the indexer's connections. */
  rpcProxy: TcpProxy;
  /** Spreads socket clients over the socket replicas. */
  balancer: TcpBalancer;
  procs: Map<ProcessName, RunningService>;
  api: ApiClient;
  socketUrl: string;
  /** The maker organisation's admin wallet, signed in, registered premium, posting offers. */
  maker: { account: PrivateKeyAccount; token: string };
  /** Every maker-visible feed: the request feed of three freemium wallets and the maker's own, and the maker's rfq_maker topic. */
  feeds: { requests: FeedRecorder[]; makerTopic: FeedRecorder };
  /** Restarts a process (after a kill) under the same name and settings. */
  respawn(name: ProcessName): Promise<RunningService>;
  /** The socket replicas' ports, for the balancer. */
  socketPorts(): number[];
  close(): Promise<void>;
}

/**
 * The whole service as production runs it, one role per process: an API, two socket replicas
 * behind a balancer, two worker replicas and an indexer, over a private Redis, a fresh
 * database and a Hardhat node with the reference contracts (reached through a TCP proxy).
 * `opts.redis` configures the private Redis (persistence, maxmemory), `opts.env` adds settings to every process.
 */
export async function startStack(opts: { redis?: TestRedisOptions; env?: Record<string, string> } = {}): Promise<Stack> {
  return startStackOn(() => startTestRedis(opts.redis), opts.env);
}

/** The same stack over a private Redis Cluster (test/support/redis-cluster.ts), every role pointed at it by `REDIS_URL=redis+cluster://...`. */
export async function startClusterStack(opts: { cluster?: RedisClusterOptions; env?: Record<string, string> } = {}): Promise<Stack<TestRedisCluster>> {
  return startStackOn(() => startRedisCluster(opts.cluster), opts.env);
}

/** Longest wait for one process of the stack (a role, the Hardhat node) to be up: a ceiling for a busy machine, not a duration. */
const START_TIMEOUT_MS = 90_000;

/**
 * Waits for every one of `started`; when one fails, closes those that started and throws the
 * first failure, so a stack that did not come up leaves no process behind.
 */
async function allOrNone<T extends unknown[]>(started: { [K in keyof T]: Promise<T[K]> }, close: (value: unknown) => Promise<unknown>): Promise<T> {
  const settled = await Promise.allSettled(started);
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (!failed) return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as T;
  await Promise.allSettled(settled.filter((r) => r.status === 'fulfilled').map((r) => close((r as PromiseFulfilledResult<unknown>).value)));
  throw failed.reason;
}

async function startStackOn<R extends { url: string; close(): Promise<void> }>(
  startRedis: () => Promise<R>,
  extraEnv: Record<string, string> = {},
): Promise<Stack<R>> {
  // Redis (then the database, whose config names it) and the chain (node, then contracts) do not
  // wait on each other: both start at once.
  const redisStarted = startRedis();
  const envCreated = redisStarted.then((redis) => createTestEnv({ REDIS_URL: redis.url }));
  const chainDeployed = (async () => {
    const node = await startHardhatNode({ port: await freePort(), timeoutMs: START_TIMEOUT_MS });
    try {
      return { node, addresses: await deployReferenceContracts({ rpcUrl: node.rpcUrl }) };
    } catch (err) {
      await node.stop();
      throw err;
    }
  })();
  const [redis, env, { node, addresses }] = await allOrNone<[R, TestEnv, { node: HardhatNode; addresses: DeployedAddresses }]>(
    [redisStarted, envCreated, chainDeployed],
    async (v) => {
      const started = v as Partial<R & TestEnv & { node: HardhatNode }>;
      if (started.node) await started.node.stop();
      else await started.close?.();
    },
  );
  const rpcProxy = await startTcpProxy(node.rpcUrl);
  await new NetworksService(env.db).upsertNetwork(devchainNetwork(rpcProxy.url, addresses));

  const common = { ...sharedEnv(env, redis, randomBytes(32).toString('hex')), ...extraEnv };
  const procs = new Map<ProcessName, RunningService>();
  const spawnOne = async (name: ProcessName) => {
    const url = new URL(env.config.DATABASE_URL);
    url.searchParams.set('application_name', `${APP_NAME_PREFIX}${name}`);
    const svc = await spawnService(
      { ...common, ROLES: ROLE_OF[name].roles, DATABASE_URL: url.toString() },
      { timeoutMs: START_TIMEOUT_MS, ...ROLE_OF[name].ready },
    );
    procs.set(name, svc);
    return svc;
  };
  const makerAccount = privateKeyToAccount(generatePrivateKey());
  // The maker organisation needs the database alone: made while the roles start.
  const spawned = await Promise.allSettled([
    ...PROCESS_NAMES.map(spawnOne),
    ops(env, 'org:create', '--kind', 'maker', '--name', 'Fault maker', '--owner', makerAccount.address),
  ]);
  const failed = spawned.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const created = spawned[spawned.length - 1];
  if (failed || created.status !== 'fulfilled' || (created.value as { code: number }).code !== 0) {
    await Promise.allSettled([...procs.values()].map((p) => p.stop('SIGKILL')));
    await Promise.allSettled([rpcProxy.close(), node.stop(), env.close(), redis.close()]);
    if (failed) throw failed.reason;
    throw new Error(`org:create failed: ${(created as PromiseFulfilledResult<{ stderr: string }>).value.stderr}`);
  }
  const socketPorts = () =>
    (['socket-a', 'socket-b'] as const)
      .map((n) => procs.get(n)!)
      .filter((p) => p.child.exitCode === null && p.child.signalCode === null)
      .map((p) => p.port);
  const balancer = await startTcpBalancer(socketPorts());
  const api = new ApiClient(procs.get('api')!.url);
  const socketUrl = `ws://127.0.0.1:${balancer.port}/socket`;

  // The four sign-ins and registrations at once; the feeds then open one by one, so the balancer
  // spreads them over the replicas in the same order every run.
  const signUp = async (account: PrivateKeyAccount, tier: 'premium' | 'freemium') => {
    const token = (await api.signIn(account)).token;
    await api.call('POST', `/api/pubsub/${tier}`, { chain_id: CHAIN_ID }, { authorization: `Bearer ${token}` });
    return token;
  };
  const [makerToken, ...freemiumTokens] = await Promise.all([
    signUp(makerAccount, 'premium'),
    ...[0, 1, 2].map(() => signUp(privateKeyToAccount(generatePrivateKey()), 'freemium')),
  ]);
  const topic = `quotes:${CHAIN_ID}:requests`;
  const requests: FeedRecorder[] = [];
  for (const token of [makerToken, ...freemiumTokens]) requests.push(await FeedRecorder.open(socketUrl, topic, { token }));
  const makerTopic = await FeedRecorder.open(socketUrl, `rfq_maker:${makerAccount.address}`, { token: makerToken });

  return {
    env,
    redis,
    node,
    addresses,
    rpcProxy,
    balancer,
    procs,
    api,
    socketUrl,
    maker: { account: makerAccount, token: makerToken },
    feeds: { requests, makerTopic },
    respawn: spawnOne,
    socketPorts,
    async close() {
      await Promise.allSettled([...requests, makerTopic].map((f) => f.close()));
      await Promise.allSettled([...procs.values()].map((p) => p.stop('SIGKILL')));
      // Nothing of the service is left to use them: the rest closes at once (Redis after the
      // test's own clients of it have quit).
      await Promise.all([balancer.close(), rpcProxy.close(), node.stop(), env.close().then(() => redis.close())]);
    },
  };
}

/** A funded Hardhat account that takes quotes and settles them on the node directly (not through the proxy). */
export function takerWallet(stack: Stack, index: number) {
  const account = hardhatAccounts(index + 1)[index];
  return {
    account,
    wallet: localWalletClient(stack.node.rpcUrl, account),
    client: localPublicClient(stack.node.rpcUrl),
  };
}
