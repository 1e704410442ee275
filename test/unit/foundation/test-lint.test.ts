import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = 'test/unit/foundation/fixtures/focused-and-skipped.fixture.ts';
/** The rules of test files alone (eslint.test-files.mjs), without the type-aware rest: seconds instead of a minute. */
const CONFIG = 'test/unit/foundation/fixtures/test-files-only.eslint.mjs';

/**
 * The lint keeps the suite whole (eslint.test-files.mjs, part of eslint.config.mjs): a focused, skipped, todo or failing-by-design
 * test, and Math.random in a test, are errors. The fixture holds one case a line; the last line,
 * a table that runs, must pass.
 */
describe('the lint of test files', () => {
  it('reports every focused, skipped and todo test, and Math.random, and nothing else', async () => {
    const out = await run(
      process.execPath,
      [path.join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--config', CONFIG, '--no-ignore', '--format', 'json', FIXTURE],
      { cwd: ROOT },
    ).catch((err: { stdout: string; code: number }) => ({ stdout: err.stdout, code: err.code }));
    const [result] = JSON.parse(out.stdout) as { messages: { line: number; ruleId: string }[] }[];
    const reported = result.messages.map((m) => `${m.line} ${m.ruleId}`);
    const focusOrSkip = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map((line) => `${line} no-restricted-syntax`);
    expect(reported).toEqual([...focusOrSkip, '14 no-restricted-properties']);
  }, 60_000);
});
