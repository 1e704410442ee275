import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { noteWarningText } from './process-warnings';
import { scriptArgs } from './test-build';
import type { TestEnv } from './test-env';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/**
 * The operator CLI exactly as an operator runs it, against the test environment's database:
 * compiled from the run's build when it is fresh, else its sources through tsx (test/support/test-build.ts).
 */
export async function ops(env: TestEnv, ...args: string[]): Promise<OpsResult> {
  return opsWithEnv(env, {}, ...args);
}

/** `ops` with extra environment variables for the CLI process (a preload in NODE_OPTIONS, say). */
export async function opsWithEnv(env: TestEnv, extra: Record<string, string>, ...args: string[]): Promise<OpsResult> {
  return opsOn({ DATABASE_URL: env.config.DATABASE_URL, REDIS_URL: env.config.REDIS_URL, ...extra }, ...args);
}

/** What one run of the CLI said, and its exit code. */
export interface OpsResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The CLI with the given environment (and PATH) only: for a stack the test did not make through
 * test-env (the scaled stack's own Postgres).
 */
export async function opsOn(vars: Record<string, string>, ...args: string[]): Promise<OpsResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...scriptArgs('bin/ops.ts'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, ...vars },
    });
    noteWarningText(stderr, `ops ${args[0] ?? ''}`);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    noteWarningText(e.stderr ?? '', `ops ${args[0] ?? ''}`);
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
