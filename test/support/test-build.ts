import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { throughTsx } from '../../shared/platform/files';

/**
 * The run's TypeScript build: `npm run build:test` type-checks the whole project (what
 * `npm run typecheck` checks) and emits it to `.build/tsc` in the same pass, incrementally
 * (`.build/tsc/.tsbuildinfo`). `npm test` runs it instead of the plain typecheck, so the build
 * costs the run nothing extra; spawned roles and the ops CLI then start from it with plain `node`
 * instead of compiling their sources through tsx at every start (test/support/spawn-service.ts,
 * test/support/ops.ts), and so do the demos, the maker bot and the scaled stack the e2e tests run
 * as processes (`scriptArgs`). The global setup hands the folder to the test files as
 * `RFQ_TEST_BUILD_DIR`, only when the build is newer than every source; otherwise they run the
 * sources through tsx, as before. `RFQ_TEST_BUILD_DIR=none` forces tsx.
 */
export const ROOT = path.resolve(__dirname, '../..');
export const TEST_BUILD_DIR = path.join(ROOT, '.build', 'tsc');
const BUILD_INFO = path.join(TEST_BUILD_DIR, '.tsbuildinfo');

/**
 * The folders a spawned process loads its code from (a role, the ops CLI, the scaled stack, a demo
 * with the client and the doc snippets it imports), and the files that change what tsc emits: a
 * change to a test alone leaves the build fresh for the processes the tests spawn.
 */
const SOURCE_DIRS = ['wire', 'api', 'socket', 'workers', 'indexer', 'shared', 'dev', 'migrations', 'bin', 'examples', 'client/src', 'docs/snippets'];
const SOURCE_FILES = ['tsconfig.json', 'package-lock.json'];
const SKIPPED = new Set(['node_modules', 'dist', 'artifacts', '.build']);

/** The arguments of `npm run build:test` (package.json keeps the same line). */
export const BUILD_ARGS = ['-p', 'tsconfig.json', '--outDir', '.build/tsc', '--incremental', '--tsBuildInfoFile', '.build/tsc/.tsbuildinfo'];

/** Whether `.build/tsc` holds a build at least as new as every source the spawned processes run. */
export function testBuildIsFresh(): boolean {
  if (!existsSync(BUILD_INFO) || !existsSync(path.join(TEST_BUILD_DIR, 'bin', 'main.js'))) return false;
  const built = statSync(BUILD_INFO).mtimeMs;
  for (const file of SOURCE_FILES) if (statSync(path.join(ROOT, file)).mtimeMs > built) return false;
  return SOURCE_DIRS.every((dir) => newestUnder(path.join(ROOT, dir), built) <= built);
}

/** Builds `.build/tsc` (incrementally); false when tsc fails (a type error: the sources run through tsx then). */
export function buildTestBuild(): boolean {
  try {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc', { paths: [ROOT] }), ...BUILD_ARGS], { cwd: ROOT, stdio: 'inherit' });
    markBuilt();
    return true;
  } catch {
    return false;
  }
}

/**
 * Dates the build now: an incremental tsc that finds nothing to do leaves its build info as it
 * was, older than a source that was touched without being changed (a checkout).
 */
export function markBuilt(): void {
  const now = new Date();
  utimesSync(BUILD_INFO, now, now);
}

/** The newest .ts / .json modification time under `dir`, stopping early once one is newer than `than`. */
function newestUnder(dir: string, than: number): number {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (SKIPPED.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestUnder(full, than));
    else if (/\.(ts|json)$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
    if (newest > than) return newest;
  }
  return newest;
}

/** Where a spawned process's compiled entry is (`bin/main`, `bin/ops`...), or undefined: run the source through tsx. */
export function compiledEntry(source: string): string | undefined {
  const dir = process.env.RFQ_TEST_BUILD_DIR;
  if (dir === undefined || dir === '' || dir === 'none') return undefined;
  return path.relative(ROOT, path.join(dir, source.replace(/\.ts$/, '.js')));
}

/**
 * The `node` arguments that run a script of the repository (`examples/demo.ts`, `dev/scaled/stack.ts`):
 * its compiled entry from the run's build, or its source through tsx (as a loader, not tsx's CLI,
 * which runs the program in a grandchild that a signal to the child would not reach).
 */
export function scriptArgs(source: string): string[] {
  const compiled = compiledEntry(source);
  return compiled !== undefined ? [compiled] : throughTsx(source);
}

/**
 * The npm names the compiled client and doc snippets import each other by, and the folder of the
 * build each stands for. tsc leaves an import's specifier as written (tsconfig's `paths` only
 * guide its type checking; jest maps the names itself, tsx reads `paths`), so in the build
 * `require('@options-rfq/wire')` finds nothing: the roles never ask, they import wire/src by path.
 */
const WORKSPACE_PACKAGES: Record<string, string> = { '@options-rfq/wire': 'wire/src', '@options-rfq/client': 'client/src' };

/**
 * Makes the build's compiled client and snippets resolve those names: a package.json per name
 * in the build's own node_modules, the first folder Node looks in from a compiled file, whose
 * `main` is the compiled index. Node loads the file at that path, so a demo holds one copy of
 * the wire module whether it reached it by name or by a relative path. Written by
 * `npm run build:test` (so `node .build/tsc/examples/<demo>.js` runs after a plain build) and by
 * the global setup with each run that hands the build over; left as they are when already right.
 * `dir` is the build folder (this file, compiled, lives inside it: its own default would not be).
 */
export function linkWorkspacePackages(dir: string = TEST_BUILD_DIR): void {
  for (const [name, folder] of Object.entries(WORKSPACE_PACKAGES)) {
    const pkg = path.join(dir, 'node_modules', name);
    const file = path.join(pkg, 'package.json');
    const main = path
      .relative(pkg, path.join(dir, folder, 'index.js'))
      .split(path.sep)
      .join('/');
    const text = `${JSON.stringify({ name, private: true, main }, null, 2)}\n`;
    if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
    mkdirSync(pkg, { recursive: true });
    writeFileSync(file, text);
  }
}
