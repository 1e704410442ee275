import { z } from 'zod';

/** One node of a Redis Cluster as the operator named it. */
export interface RedisNode {
  host: string;
  port: number;
}

/** Where the service's Redis is: one server (a plain URL), or a cluster reached through seed nodes. */
export type RedisEndpoint = { kind: 'single'; url: string } | { kind: 'cluster'; nodes: RedisNode[]; username?: string; password?: string; tls: boolean };

const CLUSTER_SCHEMES = ['redis+cluster:', 'rediss+cluster:'];
const NODE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/;

/** `host:port` (an IPv6 host in brackets), or null when it is not one. */
export function parseRedisNode(s: string): RedisNode | null {
  const m = NODE.exec(s.trim());
  if (!m) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  return { host: m[1].startsWith('[') ? m[1].slice(1, -1) : m[1], port };
}

/**
 * `redis+cluster://[user[:password]@]host:port[,host:port...][/]` (`rediss+cluster:` for TLS):
 * WHATWG URLs take one host, so the node list is read by hand. Null when it is not such a URL.
 */
export function parseClusterUrl(url: string): Extract<RedisEndpoint, { kind: 'cluster' }> | null {
  const scheme = CLUSTER_SCHEMES.find((s) => url.startsWith(`${s}//`));
  if (!scheme) return null;
  let rest = url.slice(scheme.length + 2).replace(/\/$/, '');
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const auth = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = auth.indexOf(':');
    try {
      username = decodeURIComponent(colon < 0 ? auth : auth.slice(0, colon)) || undefined;
      password = colon < 0 ? undefined : decodeURIComponent(auth.slice(colon + 1)) || undefined;
    } catch {
      return null;
    }
  }
  const nodes = rest.split(',').map(parseRedisNode);
  if (nodes.length === 0 || nodes.some((n) => n === null)) return null;
  return { kind: 'cluster', nodes: nodes as RedisNode[], username, password, tls: scheme === 'rediss+cluster:' };
}

/** REDIS_URL: a redis:// or rediss:// URL, or a redis+cluster:// list of seed nodes. */
export const redisUrlEnv = z
  .string()
  .default('redis://127.0.0.1:6379')
  .refine((v) => {
    if (CLUSTER_SCHEMES.some((s) => v.startsWith(s))) return parseClusterUrl(v) !== null;
    try {
      return ['redis:', 'rediss:'].includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, 'must be a redis:// or rediss:// URL, or redis+cluster://host:port[,host:port...]');

/** REDIS_CLUSTER_NODES: comma-separated host:port seeds; empty = not a cluster. */
export const redisClusterNodesEnv = z
  .string()
  .default('')
  .transform((v, ctx) => {
    const parts = v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    const nodes: RedisNode[] = [];
    for (const p of parts) {
      const n = parseRedisNode(p);
      if (!n) {
        ctx.issues.push({ code: 'custom', message: `${JSON.stringify(p)} is not host:port`, input: v });
        return z.NEVER;
      }
      nodes.push(n);
    }
    return nodes;
  });

/** Both ways of naming a cluster at once would leave one of them silently unused. */
export function redisEndpointProblems(env: Readonly<Record<string, string>>): { key: string; message: string }[] {
  if (env.REDIS_CLUSTER_NODES !== undefined && env.REDIS_URL !== undefined && parseClusterUrl(env.REDIS_URL) !== null) {
    return [{ key: 'REDIS_CLUSTER_NODES', message: 'set either REDIS_CLUSTER_NODES or a redis+cluster:// REDIS_URL, not both' }];
  }
  return [];
}

/**
 * The Redis the configuration names. With REDIS_CLUSTER_NODES, a cluster of those seeds that
 * takes its user, password and TLS (rediss:) from REDIS_URL, whose host is then unused.
 */
export function redisEndpoint(config: { REDIS_URL: string; REDIS_CLUSTER_NODES: readonly RedisNode[] }): RedisEndpoint {
  const fromUrl = parseClusterUrl(config.REDIS_URL);
  if (fromUrl) return fromUrl;
  if (config.REDIS_CLUSTER_NODES.length === 0) return { kind: 'single', url: config.REDIS_URL };
  const u = new URL(config.REDIS_URL);
  return {
    kind: 'cluster',
    nodes: [...config.REDIS_CLUSTER_NODES],
    username: decodeURIComponent(u.username) || undefined,
    password: decodeURIComponent(u.password) || undefined,
    tls: u.protocol === 'rediss:',
  };
}
