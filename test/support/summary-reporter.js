const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/** Where the run's per-file timings go (gitignored); TEST_TIMINGS_FILE puts them elsewhere. */
const TIMINGS_FILE = process.env.TEST_TIMINGS_FILE ?? path.join(__dirname, '..', '..', '.build', 'test-timings.json');
const SLOWEST = 15;

/**
 * Closes every run with what it cost and what it left out, then the totals:
 *
 * - each test file's wall time, the slowest 15 printed, every file in TIMINGS_FILE as JSON with
 *   the run's conditions (cores, workers, load, seed), so a slow suite says where its minutes go
 *   (docs/TESTING.md, "Suite speed");
 * - skipped and todo tests fail the run (a focused test skips the others in its file), unless
 *   the run itself narrowed the tests with `-t`: the lint refuses them in the sources too;
 * - one plain line, `jest: N passed, N failed`, last, so tools that read a closing line know what ran.
 */
class SummaryReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
    this.startedAt = Date.now();
    this.loadAtStart = os.loadavg();
    this.error = undefined;
  }

  onRunStart() {
    this.startedAt = Date.now();
    this.loadAtStart = os.loadavg();
  }

  onRunComplete(_contexts, results) {
    const root = this.globalConfig.rootDir;
    const files = results.testResults
      .map((r) => ({
        file: path.relative(root, r.testFilePath),
        seconds: round((r.perfStats.end - r.perfStats.start) / 1000),
        startedAt: round((r.perfStats.start - this.startedAt) / 1000),
        tests: r.numPassingTests + r.numFailingTests + r.numPendingTests + r.numTodoTests,
        failed: r.numFailingTests + (r.testExecError ? 1 : 0),
        skipped: r.numPendingTests + r.numTodoTests,
      }))
      .sort((a, b) => b.seconds - a.seconds);
    const report = {
      finishedAt: new Date().toISOString(),
      wallSeconds: round((Date.now() - this.startedAt) / 1000),
      conditions: {
        cores: os.availableParallelism(),
        maxWorkers: this.globalConfig.maxWorkers,
        loadAverageAtStart: this.loadAtStart.map(round),
        loadAverageAtEnd: os.loadavg().map(round),
        node: process.version,
        seed: process.env.TEST_SEED,
        serviceEntry: serviceEntry(),
        chain: process.env.TEST_CHAIN === 'private' ? 'a node per file' : 'a node per worker',
      },
      totals: {
        files: files.length,
        tests: results.numTotalTests,
        passed: results.numPassedTests,
        failed: results.numFailedTests,
        skipped: results.numPendingTests,
        todo: results.numTodoTests,
      },
      files,
    };
    fs.mkdirSync(path.dirname(TIMINGS_FILE), { recursive: true });
    fs.writeFileSync(TIMINGS_FILE, `${JSON.stringify(report, null, 2)}\n`);

    const out = [
      `\nslowest test files (of ${files.length}, ${report.wallSeconds} s wall, ${report.conditions.maxWorkers} workers on ${report.conditions.cores} cores; all in ${path.relative(process.cwd(), TIMINGS_FILE)}):`,
    ];
    for (const f of files.slice(0, SLOWEST)) out.push(`  ${f.seconds.toFixed(1).padStart(7)} s  ${f.file}`);
    if (process.env.TEST_SEED !== undefined) out.push(`test seed: ${process.env.TEST_SEED} (replay with TEST_SEED=${process.env.TEST_SEED})`);

    const left = results.numPendingTests + results.numTodoTests;
    if (left > 0 && !this.globalConfig.testNamePattern) {
      const where = files.filter((f) => f.skipped > 0).map((f) => `${f.file} (${f.skipped})`);
      this.error = new Error(`${left} test(s) skipped or todo, which the suite does not allow: ${where.join(', ')}`);
      out.push(`jest: ${results.numPendingTests} skipped, ${results.numTodoTests} todo: the run fails (${where.join(', ')})`);
    }
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    out.push(`\njest: ${results.numPassedTests} passed, ${failed} failed\n`);
    process.stdout.write(out.join('\n'));
  }

  getLastError() {
    return this.error;
  }
}

const round = (n) => Math.round(n * 10) / 10;

/** How spawned roles ran: the run's build (test/support/test-build.ts), or tsx. */
function serviceEntry() {
  const dir = process.env.RFQ_TEST_BUILD_DIR;
  return dir !== undefined && dir !== '' && dir !== 'none' ? 'compiled (.build/tsc)' : 'tsx';
}

module.exports = SummaryReporter;
