import { ConfigError, loadConfig } from '../../../shared/config';

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
});
