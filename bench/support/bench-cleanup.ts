import type { ChildProcess } from 'node:child_process';
import IORedis from 'ioredis';

/**
 * What a bench opens goes when it ends, however it ends: after its last figure, after a failure,
 * and on SIGINT or SIGTERM (docs/PERFORMANCE.md, "Cleanup"). The helpers that open something
 * register its undoing here (a database, a Redis prefix, a child process, a Hardhat node), and
 * `runBench` runs the bench, then every registered step, last opened first, and exits. Keys left
 * under a bench prefix skew every later Redis figure on the machine; a child left running, every
 * later CPU figure.
 */
interface Step {
  name: string;
  run: () => Promise<void> | void;
}

const steps: Step[] = [];
let cleaning: Promise<void> | undefined;

/** Registers a step to run when the bench ends; the returned function runs it now instead (once). */
export function onBenchExit(name: string, run: () => Promise<void> | void): () => Promise<void> {
  let done: Promise<void> | undefined;
  const step: Step = { name, run: () => (done ??= Promise.resolve().then(run)) };
  steps.push(step);
  return () => step.run() as Promise<void>;
}

/** A Redis key prefix of this run (`bench:<tag>:<time>:`) whose keys are deleted when the bench ends. */
export function benchPrefix(tag: string, redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): string {
  const prefix = `bench:${tag}:${Date.now().toString(36)}:`;
  onBenchExit(`Redis keys ${prefix}*`, () => deleteKeys(redisUrl, prefix));
  return prefix;
}

/** Stops `child` when the bench ends (SIGTERM, then SIGKILL after `graceMs`), unless it ended already. */
export function stopOnBenchExit(child: ChildProcess, name: string, graceMs = 5000): () => Promise<void> {
  return onBenchExit(name, () => stopChild(child, graceMs));
}

/** SIGTERM, then SIGKILL if it is still there after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Runs every registered step, last registered first; a failed step is reported and the others still run. */
export function cleanUpBench(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of steps.splice(0).reverse()) {
      try {
        await step.run();
      } catch (err) {
        process.stderr.write(`bench cleanup: ${step.name} failed: ${(err as Error).message}\n`);
      }
    }
  })();
  return cleaning;
}

/**
 * The entry of every bench: runs `main`, cleans up, exits 0 (or 1 after a failure). SIGINT and
 * SIGTERM clean up too, then exit 130 / 143; a second signal during the cleanup ends it at once.
 */
export function runBench(main: () => Promise<void>): void {
  let finishing = false;
  const failed = new Set<string>();
  // Work the bench had in flight fails as its processes and database go (a pool whose connection
  // the DROP ... WITH FORCE ended): one line per kind of failure, and the cleanup goes on.
  const inFlight = (err: unknown) => {
    const message = (err as Error)?.message ?? String(err);
    if (!failed.has(message)) process.stderr.write(`bench cleanup: in-flight work failed: ${message}\n`);
    failed.add(message);
  };
  const finish = (code: number) => {
    if (finishing) return;
    finishing = true;
    process.on('uncaughtException', inFlight);
    void cleanUpBench().finally(() => process.exit(code));
  };
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      process.stderr.write(`bench: ${signal}, cleaning up (again to stop at once)\n`);
      finish(code);
    });
  }
  main().then(
    () => finish(0),
    (err: unknown) => {
      if (finishing) return inFlight(err);
      process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
      finish(1);
    },
  );
}

async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    if (deleted > 0) process.stdout.write(`bench cleanup: ${deleted} Redis key(s) under ${prefix} deleted\n`);
  } finally {
    redis.disconnect();
  }
}
