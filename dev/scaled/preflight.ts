import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * What `npm run stack:scaled` needs from the machine, looked for before anything starts: each
 * missing tool is one line naming the Debian package that brings it and the command to install
 * it, instead of a half-started stack failing on the first tool it lacks.
 */
export interface Missing {
  tool: string;
  why: string;
  debianPackage: string;
}

const POSTGRES = '/usr/lib/postgresql';

function onPath(tool: string, env: NodeJS.ProcessEnv): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { env, encoding: 'utf8' }).status === 0;
}

/** The newest Postgres version whose bin folder holds every server tool the pair uses, or null. */
export function postgresVersionWithTools(base = POSTGRES): string | null {
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  return versions.find((v) => ['initdb', 'pg_ctl', 'pg_basebackup'].every((t) => existsSync(path.join(base, v, 'bin', t)))) ?? null;
}

export function preflight(env: NodeJS.ProcessEnv = process.env): Missing[] {
  const missing: Missing[] = [];
  const need = (tool: string, why: string, debianPackage: string) => {
    if (!onPath(tool, env)) missing.push({ tool, why, debianPackage });
  };
  need('haproxy', 'the load balancer in front of the API and socket replicas', 'haproxy');
  need('redis-server', 'the Redis Cluster nodes', 'redis-server');
  need('redis-cli', 'creating the Redis Cluster', 'redis-tools');
  need('psql', 'checking the Postgres replica', 'postgresql-client');
  if (postgresVersionWithTools() === null) {
    missing.push({
      tool: 'initdb, pg_ctl and pg_basebackup (one version)',
      why: 'the Postgres primary and its streaming replica',
      debianPackage: 'postgresql',
    });
  }
  if (process.getuid?.() === 0) need('runuser', 'running the Postgres tools as the postgres user (initdb refuses root)', 'util-linux');
  return missing;
}

/** One line per missing tool, each with the install command. */
export function describeMissing(missing: readonly Missing[]): string[] {
  return missing.map((m) => `missing ${m.tool} (${m.why}): install Debian's ${m.debianPackage}: apt-get install -y ${m.debianPackage}`);
}
