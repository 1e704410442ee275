/**
 * The test environment: jest's Node environment, plus a guard that fails a test when `pg` warns
 * of a deprecation while it runs. The one that matters: "Calling client.query() when the client is
 * already executing a query" (two queries at once on one client), an error in the next major pg.
 *
 * Node emits warnings on the real `process`, which a test's sandbox does not see: this class, which
 * runs outside the sandbox, listens there. Spawned service processes log their warnings as JSON
 * lines (bin/process-output.ts); the helpers that read their output (spawn-service.ts, ops.ts)
 * hand those to `globalThis.__rfqProcessWarnings`, the same list. A warning seen while a test
 * ran fails that test; one seen outside any test (a hook) fails the file.
 */
const { TestEnvironment } = require('jest-environment-node');

/**
 * The worker's shared Hardhat node (test/support/worker-chain.ts). This module is loaded once per
 * jest worker, outside the test files' sandboxes, so what it holds outlives each file: the first
 * file that asks for the shared chain starts the node and records it here (plain data, a JSON
 * string, so no file's sandbox is kept alive by it); the next files on this worker reuse it.
 * The node dies with the worker (its stdin guard, dev/hardhat-node.ts); `stopWorkerChain` ends it
 * sooner, for a run in band, whose "worker" is jest's own process and outlives the global teardown.
 */
const workerChain = { state: undefined };

function stopWorkerChain() {
  if (workerChain.state === undefined) return;
  const { pid } = JSON.parse(workerChain.state);
  workerChain.state = undefined;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already ended
  }
}
process.once('exit', stopWorkerChain);

/** A DeprecationWarning raised by pg or pg-pool (their messages name pg@9; their stacks start in their code). */
function isPgDeprecation(w) {
  if (!w || w.name !== 'DeprecationWarning') return false;
  const stack = String(w.stack ?? '');
  return /[\\/]node_modules[\\/]pg(-pool)?[\\/]/.test(stack) || /\bpg@\d|version of pg\b/.test(String(w.message ?? ''));
}

function describeAll(warnings) {
  return warnings.map((w) => `${w.source}: ${w.name}: ${w.message}\n${w.stack ?? ''}`).join('\n\n');
}

class RfqTestEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    /** Every warning seen, of this process and of spawned ones, until a test or the file takes them. */
    this.warnings = [];
    this.global.__rfqProcessWarnings = this.warnings;
    this.global.__rfqWorkerChain = workerChain;
    this.onWarning = (w) => this.warnings.push({ source: 'the jest process', name: w.name, message: w.message, stack: w.stack });
  }

  async setup() {
    await super.setup();
    process.on('warning', this.onWarning);
  }

  async teardown() {
    process.off('warning', this.onWarning);
    await super.teardown();
  }

  /** The pg deprecations seen since the last call. */
  take() {
    const found = this.warnings.filter(isPgDeprecation);
    this.warnings.length = 0;
    return found;
  }

  async handleTestEvent(event, state) {
    if (event.name === 'test_done') {
      const found = this.take();
      if (found.length > 0)
        event.test.errors.push(new Error(`pg deprecation warning during this test (fix the code that caused it):\n\n${describeAll(found)}`));
    } else if (event.name === 'run_finish') {
      const found = this.take();
      if (found.length > 0) state.unhandledErrors.push(new Error(`pg deprecation warning outside any test (in a hook):\n\n${describeAll(found)}`));
    }
  }
}

module.exports = RfqTestEnvironment;
module.exports.isPgDeprecation = isPgDeprecation;
module.exports.stopWorkerChain = stopWorkerChain;
