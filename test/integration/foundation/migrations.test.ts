import { loadMigrations } from '../../../shared/platform/db';
import { createDataSource } from '../../../shared/entities';
import { dropDatabase, runId, urlFor, withAdmin } from '../../support/test-db';

async function tables(ds: ReturnType<typeof createDataSource>): Promise<string[]> {
  const rows: { table_name: string }[] = await ds.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'schema_migrations' ORDER BY 1`,
  );
  return rows.map((r) => r.table_name);
}

describe('migrations', () => {
  const name = `rfq_t_${runId()}_migrations_${process.pid}`;

  beforeAll(() => withAdmin((c) => c.query(`CREATE DATABASE "${name}"`)));
  afterAll(() => withAdmin((c) => dropDatabase(c, name)));

  it('go up, all the way down, and up again on an empty database', async () => {
    const ds = createDataSource({ url: urlFor(name), poolSize: 1 });
    await ds.initialize();
    try {
      const count = loadMigrations().length;
      const up = await ds.runMigrations({ transaction: 'each' });
      expect(up).toHaveLength(count);
      const afterUp = await tables(ds);
      expect(afterUp).toEqual(expect.arrayContaining(['networks', 'settings', 'tokens']));

      for (let i = 0; i < count; i++) await ds.undoLastMigration({ transaction: 'each' });
      expect(await tables(ds)).toEqual([]);

      const again = await ds.runMigrations({ transaction: 'each' });
      expect(again).toHaveLength(count);
      expect(await tables(ds)).toEqual(afterUp);
    } finally {
      await ds.destroy();
    }
  });

  it('file names are ordered, unique and each holds one class', () => {
    const names = loadMigrations().map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
