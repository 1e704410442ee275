import { ConfigError, loadConfig, redisEndpoint } from '../../../shared/platform/config';

describe('config', () => {
  it('gives working developer defaults', () => {
    const c = loadConfig({});
    expect(c.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/options_rfq');
    expect(c.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(c.PORT).toBe(8080);
    expect(c.HOST).toBe('127.0.0.1');
    expect(c.ROLES).toEqual(['api', 'socket', 'workers', 'indexer']);
  });

  it('parses lists, numbers and booleans from strings; blank means default', () => {
    const c = loadConfig({ ROLES: 'api, workers', PORT: '9000', MIGRATE_ON_START: 'no', LOG_LEVEL: '' });
    expect(c.ROLES).toEqual(['api', 'workers']);
    expect(c.PORT).toBe(9000);
    expect(c.MIGRATE_ON_START).toBe(false);
    expect(c.LOG_LEVEL).toBe('info');
  });

  it('rejects a bad environment naming every bad key in one error', () => {
    let caught: unknown;
    try {
      loadConfig({ PORT: 'eighty', ROLES: 'api,chef', DATABASE_URL: 'mysql://x/y', LOG_LEVEL: 'loud', REDIS_PREFIX: 'has space' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const e = caught as ConfigError;
    expect(e.problems.map((p) => p.key).sort()).toEqual(['DATABASE_URL', 'LOG_LEVEL', 'PORT', 'REDIS_PREFIX', 'ROLES']);
    for (const key of ['PORT', 'ROLES', 'DATABASE_URL', 'LOG_LEVEL', 'REDIS_PREFIX']) expect(e.message).toContain(`${key}:`);
    expect(e.message).toMatch(/^invalid configuration \(5 problems\)/);
  });

  it('returns a frozen object', () => {
    const c = loadConfig({});
    expect(Object.isFrozen(c)).toBe(true);
  });

  describe('the development JWT secret is only for a loopback bind', () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        return err as ConfigError;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };

    it.each(['0.0.0.0', '::', '10.1.2.3', '192.168.0.7', 'api.example.com', '[::]'])(
      'HOST=%s without JWT_SECRET is a config error naming JWT_SECRET',
      (host) => {
        const err = refused({ HOST: host });
        expect(err).toBeInstanceOf(ConfigError);
        expect(err.problems).toEqual([{ key: 'JWT_SECRET', message: expect.stringContaining(`HOST ${host} is not a loopback address`) }]);
        expect(err.message).toContain('JWT_SECRET:');
      },
    );

    it.each(['127.0.0.1', '127.0.0.53', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])('HOST=%s may use the development secret', (host) => {
      expect(loadConfig({ HOST: host }).HOST).toBe(host);
    });

    it('any bind address is fine with a real secret', () => {
      expect(loadConfig({ HOST: '0.0.0.0', JWT_SECRET: 's'.repeat(32) }).HOST).toBe('0.0.0.0');
    });

    it('is listed with every other bad key at once', () => {
      const err = refused({ HOST: '0.0.0.0', PORT: 'eighty' });
      expect(err.problems.map((p) => p.key).sort()).toEqual(['JWT_SECRET', 'PORT']);
    });
  });
  describe('Redis: one server or a cluster', () => {
    const problemsOf = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };

    it('is one server by default', () => {
      expect(redisEndpoint(loadConfig({}))).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' });
    });

    it('is a cluster of REDIS_CLUSTER_NODES, with the credentials and TLS of REDIS_URL', () => {
      const c = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-b:7001,[::1]:7002', REDIS_URL: 'rediss://app:s%40cret@ignored:6379' });
      expect(redisEndpoint(c)).toEqual({
        kind: 'cluster',
        nodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: 'redis-b', port: 7001 },
          { host: '::1', port: 7002 },
        ],
        username: 'app',
        password: 's@cret',
        tls: true,
      });
    });

    it('reads a redis+cluster:// URL', () => {
      expect(redisEndpoint(loadConfig({ REDIS_URL: 'redis+cluster://:pw@127.0.0.1:7000,127.0.0.1:7001/' }))).toEqual({
        kind: 'cluster',
        nodes: [
          { host: '127.0.0.1', port: 7000 },
          { host: '127.0.0.1', port: 7001 },
        ],
        username: undefined,
        password: 'pw',
        tls: false,
      });
    });

    it('names the key of a bad node list, a bad cluster URL, or both ways at once', () => {
      expect(problemsOf({ REDIS_CLUSTER_NODES: '127.0.0.1:7000,nohost' }).map((p) => p.key)).toEqual(['REDIS_CLUSTER_NODES']);
      expect(problemsOf({ REDIS_CLUSTER_NODES: '127.0.0.1:70000' }).map((p) => p.key)).toEqual(['REDIS_CLUSTER_NODES']);
      expect(problemsOf({ REDIS_URL: 'redis+cluster://127.0.0.1' }).map((p) => p.key)).toEqual(['REDIS_URL']);
      expect(problemsOf({ REDIS_URL: 'redis+cluster://a:1', REDIS_CLUSTER_NODES: 'b:2' }).map((p) => p.key)).toEqual(['REDIS_CLUSTER_NODES']);
    });

    it('reads DATABASE_REPLICA_URLS as a list of postgres URLs and names it when one is not', () => {
      expect(loadConfig({}).DATABASE_REPLICA_URLS).toEqual([]);
      expect(loadConfig({ DATABASE_REPLICA_URLS: 'postgres://r1:5432/db, postgresql://r2/db' }).DATABASE_REPLICA_URLS).toEqual([
        'postgres://r1:5432/db',
        'postgresql://r2/db',
      ]);
      expect(problemsOf({ DATABASE_REPLICA_URLS: 'postgres://r1/db,http://r2/db' }).map((p) => p.key)).toEqual(['DATABASE_REPLICA_URLS']);
      expect(problemsOf({ DATABASE_REPLICA_MAX_LAG_MS: '-1' }).map((p) => p.key)).toEqual(['DATABASE_REPLICA_MAX_LAG_MS']);
      expect(problemsOf({ DATABASE_REPLICA_CHECK_MS: '10' }).map((p) => p.key)).toEqual(['DATABASE_REPLICA_CHECK_MS']);
    });
  });

  describe('OPS_DASHBOARD_TOKEN', () => {
    const refusal = (token: string) => {
      try {
        loadConfig({ OPS_DASHBOARD_TOKEN: token });
      } catch (err) {
        return (err as ConfigError).problems;
      }
      throw new Error(`accepted ${token}`);
    };

    it('is unset by default, and read as given when 32 to 512 printable characters', () => {
      expect(loadConfig({}).OPS_DASHBOARD_TOKEN).toBeUndefined();
      const token = 'k'.repeat(31) + ':';
      expect(loadConfig({ OPS_DASHBOARD_TOKEN: token }).OPS_DASHBOARD_TOKEN).toBe(token);
    });

    it.each([
      ['too short', 'k'.repeat(31), 'must be at least 32 characters'],
      ['too long', 'k'.repeat(513), 'must be at most 512 characters'],
      ['with a space', `${'k'.repeat(32)} x`, 'must be printable ASCII without spaces'],
      ['with a non-ASCII character', `${'k'.repeat(32)}é`, 'must be printable ASCII without spaces'],
    ])('refuses a token %s, naming the key', (_what, token, message) => {
      expect(refusal(token)).toEqual([{ key: 'OPS_DASHBOARD_TOKEN', message }]);
    });
  });
});
