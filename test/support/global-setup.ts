import { randomBytes } from 'node:crypto';
import 'reflect-metadata';
import { createDataSource } from '../../shared/entities';
import { dropDatabase, templateName, urlFor, withAdmin } from './test-db';
import seedSetup from './seed-setup';

/**
 * Once per jest run: the run's seed (printed), and a template database with every migration
 * applied. Each test file then clones it (CREATE DATABASE ... TEMPLATE), which takes
 * milliseconds instead of re-migrating.
 */
export default async function globalSetup(): Promise<void> {
  seedSetup();
  const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  process.env.RFQ_TEST_RUN_ID = run;
  const tmpl = templateName(run);
  await withAdmin(async (c) => {
    await dropDatabase(c, tmpl);
    await c.query(`CREATE DATABASE "${tmpl}"`);
  });
  const ds = createDataSource({ url: urlFor(tmpl), poolSize: 1 });
  await ds.initialize();
  try {
    await ds.runMigrations({ transaction: 'each' });
  } finally {
    await ds.destroy();
  }
}
