import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import 'reflect-metadata';
import { createDataSource } from '../../shared/entities';
import { dropDatabase, templateName, urlFor, withAdmin } from './test-db';
import seedSetup from './seed-setup';
import { buildTestBuild, linkWorkspacePackages, TEST_BUILD_DIR, testBuildIsFresh } from './test-build';

/**
 * Once per jest run: the run's seed (printed), the compiled build spawned roles start from, and a
 * template database with every migration applied. Each test file then clones it (CREATE DATABASE
 * ... TEMPLATE), which takes milliseconds instead of re-migrating.
 */
export default async function globalSetup(globalConfig: { testPathPattern?: string }): Promise<void> {
  seedSetup();
  chooseServiceBuild(globalConfig.testPathPattern ?? '');
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

/**
 * Spawned roles, demos and scripts run from `.build/tsc` when it is fresh (test/support/test-build.ts).
 * A whole run (no file named) with a stale or missing build builds it first, since its dozens of
 * spawned processes cost more through tsx than one incremental build; a run of a few named files
 * does not wait for a build and runs their sources through tsx. A build the run is given
 * (`RFQ_TEST_BUILD_DIR`, the LTS pass) is used as it is. Either way the build's compiled client
 * gets the package names it imports by (`linkWorkspacePackages`).
 */
function chooseServiceBuild(pathPattern: string): void {
  const given = process.env.RFQ_TEST_BUILD_DIR;
  if (given !== undefined) {
    if (given !== '' && given !== 'none' && existsSync(given)) linkWorkspacePackages(given);
    return;
  }
  let fresh = testBuildIsFresh();
  if (!fresh && pathPattern === '') {
    process.stdout.write('building .build/tsc for the spawned roles (npm run build:test)\n');
    fresh = buildTestBuild();
  }
  if (fresh) linkWorkspacePackages(TEST_BUILD_DIR);
  process.env.RFQ_TEST_BUILD_DIR = fresh ? TEST_BUILD_DIR : 'none';
  process.stdout.write(
    fresh ? 'spawned roles run compiled from .build/tsc\n' : 'spawned roles run through tsx (no fresh .build/tsc: npm run build:test makes one)\n',
  );
}
