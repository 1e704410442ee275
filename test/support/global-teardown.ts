import { heldWorkers, killProcesses, runDatabases, runKeys, runProcessesAfter } from './leftovers';

/** How long the run's processes get to end after the last file (a worker's Hardhat node ends with it). */
const PROCESS_GRACE_MS = 10_000;
const SHOWN = 10;

/**
 * Once per jest run, after the last file: counts what the run left behind (processes, databases,
 * Redis keys, test/support/leftovers.ts), prints it, cleans it up, and fails the run on any, so a
 * test that does not close what it opened is found by the run that has it, not by the machine a
 * week later (docs/TESTING.md, "Cleanup"). The run's template database is dropped either way.
 */
export default async function globalTeardown(): Promise<void> {
  const run = process.env.RFQ_TEST_RUN_ID;
  if (!run) return;
  // In band (one file, or -i) the test files ran in this process, which still holds the shared node.
  (require('./jest-environment') as { stopWorkerChain(): void }).stopWorkerChain();
  const processes = await runProcessesAfter(run, PROCESS_GRACE_MS);
  killProcesses(processes);
  const databases = await runDatabases(run, { drop: true });
  const keys = await runKeys(run, process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { unlink: true });

  reportHeldWorkers(run);

  const lines: string[] = [];
  for (const p of processes) lines.push(`  ${p.kind} (pid ${p.pid}): ${p.command}`);
  for (const d of databases) lines.push(`  database ${d}`);
  for (const [db, names] of keys)
    lines.push(
      `  ${names.length} Redis key(s) in ${db}: ${names.slice(0, SHOWN).join(', ')}${names.length > SHOWN ? `, ... (${names.length - SHOWN} more)` : ''}`,
    );
  const keyCount = [...keys.values()].reduce((n, k) => n + k.length, 0);
  if (lines.length === 0) {
    process.stdout.write('cleanup: the run left no process, database or Redis key behind\n');
    return;
  }
  const summary = `the run left ${processes.length} process(es), ${databases.length} database(s) and ${keyCount} Redis key(s) behind`;
  process.stdout.write(`\ncleanup: ${summary} (removed now):\n${lines.join('\n')}\n`);
  throw new Error(`${summary}: a test does not close what it opened (listed above)`);
}

/**
 * Jest's "A worker process has failed to exit gracefully" says only that a worker was ended; a
 * worker still running JavaScript at that moment wrote what held it (test/support/jest-environment.js):
 * printed here, so the test that left it open can be found. Reported, not failed on (yet): a
 * worker that is merely slow to take jest's "end" on a loaded machine is reported too, holding
 * only its stdio and the IPC channel to jest.
 */
function reportHeldWorkers(run: string): void {
  const held = heldWorkers(run, { remove: true });
  if (held.length === 0) return;
  const lines = held.map((w) => `  worker ${w.worker ?? '?'} (pid ${w.pid}): ${w.handles.join('; ')} [${w.resources.join(', ')}]`);
  process.stdout.write(`\ncleanup: ${held.length} jest worker(s) still ran when jest ended them; what held each:\n${lines.join('\n')}\n`);
}
