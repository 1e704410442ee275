import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');
/** Not the project's source: dependencies, build output, compiled contracts, tool caches. */
const NOT_OURS = new Set(['node_modules', '.git', 'dist', 'coverage', 'cache', 'artifacts', '.build']);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (NOT_OURS.has(e.name)) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return walk(full);
    return e.isFile() && /\.(ts|js|cjs|mjs)$/.test(e.name) ? [full] : [];
  });
}

/** Every TypeScript and JavaScript file of the project outside test/, relative to the root. */
export function sourceFiles(): string[] {
  return walk(ROOT)
    .map((f) => path.relative(ROOT, f))
    .filter((f) => !f.startsWith(`test${path.sep}`));
}

/** The same with the tests and their support, but not this folder's own checks (which spell the patterns they look for). */
export function codeFiles(): string[] {
  const house = path.relative(ROOT, __dirname) + path.sep;
  return walk(ROOT)
    .map((f) => path.relative(ROOT, f))
    .filter((f) => !f.startsWith(house));
}

/** The files of `files` whose text matches `pattern`, relative to the root. */
export function filesMatching(files: readonly string[], pattern: RegExp): string[] {
  return files.filter((f) => pattern.test(readFileSync(path.join(ROOT, f), 'utf8')));
}
