import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { haproxyConfig } from '../../../dev/scaled/haproxy-config';

const ROOT = path.resolve(__dirname, '../../..');
const COMPOSE = path.join(ROOT, 'docker-compose.scaled.yml');
const HAPROXY_CFG = path.join(ROOT, 'deploy/scaled/haproxy.cfg');
const has = (cmd: string, ...args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' }).status === 0;

interface Service {
  image?: string;
  command?: unknown;
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown> | string[];
}

/**
 * docker-compose.scaled.yml describes the scaled topology with real images, and its HAProxy
 * configuration is the one the stack script writes (service names for addresses) and is valid.
 * `docker compose config` (or Debian's docker-compose, which .ci/run installs) checks both compose
 * files; the topology is read from the YAML itself.
 */
describe('docker-compose.scaled.yml', () => {
  const env = { ...process.env, JWT_SECRET: 'x'.repeat(40), SERVICE_SIGNER_KEY: `0x${'11'.repeat(32)}` };
  const compose = parse(readFileSync(COMPOSE, 'utf8'), { merge: true }) as { services: Record<string, Service> };
  const services = compose.services;

  it('passes `docker compose config` (or docker-compose config), as does docker-compose.yml', () => {
    // .ci/run installs Debian's docker-compose where neither is present; `config` needs no daemon.
    const tool = has('docker', 'compose', 'version') ? ['docker', 'compose'] : has('docker-compose', 'version') ? ['docker-compose'] : null;
    expect(tool).not.toBeNull();
    for (const file of [COMPOSE, path.join(ROOT, 'docker-compose.yml')]) {
      const r = spawnSync(tool![0], [...tool!.slice(1), '-f', file, 'config', '--quiet'], { cwd: ROOT, env, encoding: 'utf8' });
      expect({ file: path.basename(file), status: r.status, stderr: r.stderr }).toEqual({ file: path.basename(file), status: 0, stderr: '' });
    }
    for (const [name, s] of Object.entries(services)) expect(`${name}: ${Boolean(s.image) || 'build' in s}`).toBe(`${name}: true`);
  });

  it('has six Redis Cluster nodes and a one-shot cluster create with one replica per master', () => {
    const nodes = Object.keys(services).filter((n) => /^redis-\d$/.test(n));
    expect(nodes).toHaveLength(6);
    for (const n of nodes) {
      expect(services[n].image).toMatch(/^redis:7/);
      expect(JSON.stringify(services[n].command)).toContain('--cluster-enabled yes');
    }
    const create = JSON.stringify(services['redis-cluster-create'].command);
    expect(create).toContain('--cluster create');
    expect(create).toContain('--cluster-replicas 1');
    expect(Object.keys(services['redis-cluster-create'].depends_on as object).sort()).toEqual(nodes.sort());
  });

  it('has a Postgres primary and a streaming replica cloned with pg_basebackup -R', () => {
    expect(services['postgres-primary'].image).toMatch(/^postgres:16/);
    expect(JSON.stringify(services['postgres-primary'].command)).toContain('wal_level=replica');
    expect(services['postgres-replica'].image).toMatch(/^postgres:16/);
    expect(JSON.stringify((services['postgres-replica'] as { entrypoint?: unknown }).entrypoint)).toContain('pg_basebackup -h postgres-primary');
  });

  it('runs two of each role on the primary, with the replica passed as DATABASE_REPLICA_URLS', () => {
    for (const [role, roles] of [
      ['api', 'api'],
      ['socket', 'socket'],
      ['workers', 'workers'],
      ['indexer', 'indexer'],
    ]) {
      for (const i of [1, 2]) {
        const s = services[`${role}-${i}`];
        expect(s.environment?.ROLES).toBe(roles);
        expect(s.environment?.DATABASE_URL).toContain('@postgres-primary:5432/');
        expect(s.environment?.DATABASE_REPLICA_URLS).toContain('@postgres-replica:5432/');
      }
    }
  });

  it("HAProxy's configuration is the stack script's, for the compose services, and haproxy -c accepts it", () => {
    expect(services.haproxy.image).toMatch(/^haproxy:2\./);
    const expected = haproxyConfig({
      bind: ':8080',
      resolver: '127.0.0.11:53',
      api: [1, 2].map((i) => ({ name: `api-${i}`, address: `api-${i}:8080` })),
      socket: [1, 2].map((i) => ({ name: `socket-${i}`, address: `socket-${i}:8080` })),
    });
    expect(readFileSync(HAPROXY_CFG, 'utf8')).toBe(expected);
    expect(has('haproxy', '-v')).toBe(true);
    const r = spawnSync('haproxy', ['-c', '-f', HAPROXY_CFG], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toContain('Configuration file is valid');
    expect(r.status).toBe(0);
    // The same generator with local addresses, as the stack script writes it.
    const dir = mkdtempSync(path.join(tmpdir(), 'rfq-haproxy-'));
    try {
      const local = path.join(dir, 'haproxy.cfg');
      writeFileSync(
        local,
        haproxyConfig({ bind: '127.0.0.1:18080', api: [{ name: 'api-1', address: '127.0.0.1:1' }], socket: [{ name: 'socket-1', address: '127.0.0.1:2' }] }),
      );
      expect(spawnSync('haproxy', ['-c', '-f', local], { encoding: 'utf8' }).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
