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
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
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

/** Whether this is one of jest's worker processes (a child it talks to over IPC), not jest itself running in band. */
const IS_WORKER_CHILD = typeof process.send === 'function' && process.env.JEST_WORKER_ID !== undefined;

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

/**
 * The worker's end. After its last file jest sends the worker "end" and gives it 500 ms to exit
 * before it kills it and prints "A worker process has failed to exit gracefully" (jest-worker's
 * FORCE_EXIT_DELAY). Nothing holds the worker's event loop then (its 'exit' event runs some 20 to
 * 150 ms after "end", only the stdio pipes open): the time goes after the 'exit' event, in the
 * natural exit's teardown of the V8 heap (a page at a time, hundreds of them, 0.2 to 1 s on a
 * loaded two-core machine, traced with strace), plus the kernel taking back the shared Hardhat
 * node killed at the same moment. So a worker ends here as `process.exit()` ends a process:
 * the other exit listeners run, then the process exits without tearing its heap down page by
 * page (the kernel frees it at once). Jest's own process (a run in band) ends as usual.
 */
function onProcessExit(code) {
  stopWorkerChain();
  if (!IS_WORKER_CHILD) return;
  const listeners = process.listeners('exit');
  for (const listener of listeners.slice(listeners.indexOf(onProcessExit) + 1)) {
    try {
      listener.call(process, code);
    } catch {
      // an exit listener's failure does not keep the worker
    }
  }
  process.exit(code);
}
process.on('exit', onProcessExit);

/**
 * A worker still running JavaScript when jest's SIGTERM comes (its "end" was 500 ms ago) is held
 * by something a test left open: a timer, a socket, a server, a child process. What holds it is
 * written where the global teardown reads it (test/support/leftovers.ts, `heldWorkers`), which
 * prints it at the end of the run.
 */
if (IS_WORKER_CHILD)
  process.once('SIGTERM', () => {
    const run = process.env.RFQ_TEST_RUN_ID;
    if (run !== undefined) {
      try {
        fs.writeFileSync(path.join(os.tmpdir(), `rfq-held-worker-${run}-${process.pid}.json`), JSON.stringify(heldBy()));
      } catch {
        // the report is best effort; the worker ends either way
      }
    }
    process.exit(143);
  });

/** What keeps this process's event loop alive, each handle described as far as it tells. */
function heldBy() {
  const handles = process._getActiveHandles().map((h) => {
    const kind = h?.constructor?.name ?? typeof h;
    if (h?.remotePort !== undefined) return `${kind} to ${h.remoteAddress}:${h.remotePort}`;
    if (h?.pid !== undefined) return `${kind} pid ${h.pid} (${(h.spawnargs ?? []).join(' ').slice(0, 120)})`;
    if (h?.fd === 1 || h?.fd === 2) return `${kind} ${h.fd === 1 ? 'stdout' : 'stderr'}`;
    const address = typeof h?.address === 'function' ? h.address() : undefined;
    if (address && Object.keys(address).length > 0) return `${kind} listening on ${JSON.stringify(address)}`;
    return h?.fd !== undefined ? `${kind} fd ${h.fd}` : kind;
  });
  return { pid: process.pid, worker: process.env.JEST_WORKER_ID, resources: process.getActiveResourcesInfo(), handles };
}

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
