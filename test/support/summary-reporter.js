/**
 * Prints the run's totals as one plain line, `jest: N passed, N failed`, after jest's own
 * summary, so tools that read a closing line know what ran.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`\njest: ${results.numPassedTests} passed, ${failed} failed\n`);
  }
}
module.exports = SummaryReporter;
