import { randomInt } from 'node:crypto';

/**
 * The one seed of a test run (docs/TESTING.md, "Seeds"). Every randomised test draws from it:
 * fast-check's runs (configured for every file by test/support/fast-check-seed.ts), the HTTP
 * fuzz and the socket frame fuzz. `TEST_SEED=<n>` replays a run; without it the global setup
 * picks one, puts it in the environment the workers inherit, and prints it. CI fixes it (.ci/run).
 */
export const TEST_SEED_VAR = 'TEST_SEED';

/** Parses TEST_SEED: a 32-bit unsigned integer (what fast-check takes). */
export function parseSeed(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 0xffff_ffff) throw new Error(`${TEST_SEED_VAR} must be an integer from 0 to 4294967295, got ${JSON.stringify(raw)}`);
  return n;
}

/** The run's seed: TEST_SEED as given, or one chosen now and put in the environment (children inherit it). */
export function chooseSeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[TEST_SEED_VAR];
  if (raw !== undefined && raw !== '') return parseSeed(raw);
  const seed = randomInt(0, 0xffff_ffff);
  env[TEST_SEED_VAR] = String(seed);
  return seed;
}

/** The seed of this run, inside a test file (the global setup has chosen it). */
export function testSeed(): number {
  const raw = process.env[TEST_SEED_VAR];
  if (raw === undefined || raw === '') throw new Error(`${TEST_SEED_VAR} is not set: run tests through jest (the global setup chooses it)`);
  return parseSeed(raw);
}

/** The line that says which seed a run uses and how to replay it. */
export const seedLine = (seed: number) => `test seed: ${seed} (replay with ${TEST_SEED_VAR}=${seed})`;
