import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');

/**
 * Issue 39: `npm start` printed pg's DeprecationWarning "Calling client.query() when the client
 * is already executing a query" and the suite never noticed. The test environment now fails a
 * test on it (test/support/jest-environment.js), on any DeprecationWarning of pg, on a second
 * query sent to a busy client (test/support/pg-one-query.ts), and on such a warning logged by a
 * process the test spawned. This runs a fixture file through the suite's own configuration.
 */
describe('the pg deprecation guard of the test environment', () => {
  it('fails each test that caused one, and only those', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pg-guard-'));
    const out = path.join(dir, 'results.json');
    try {
      await run(
        process.execPath,
        [
          path.join(ROOT, 'node_modules/jest/bin/jest.js'),
          '-c',
          'jest.unit.config.js',
          '--roots',
          '<rootDir>/test/unit/foundation/fixtures',
          '--testMatch',
          '**/pg-deprecation.fixture.ts',
          '--json',
          '--outputFile',
          out,
        ],
        { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0' } },
      ).catch((err: { code?: number }) => {
        // Jest exits 1 when a test failed, which is what the fixture is for.
        if (err.code !== 1) throw err;
      });
      const results = JSON.parse(await readFile(out, 'utf8')) as {
        testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[];
      };
      const tests = results.testResults.flatMap((f) => f.assertionResults);
      expect(tests.map((t) => [t.title, t.status])).toEqual([
        ["pg's own deprecation warning in the test process", 'failed'],
        ['a second query sent to a busy client', 'failed'],
        ["a spawned role's warning line", 'failed'],
        ['a test without any', 'passed'],
      ]);
      for (const t of tests.filter((x) => x.status === 'failed')) expect(t.failureMessages.join('\n')).toContain('pg deprecation warning during this test');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
