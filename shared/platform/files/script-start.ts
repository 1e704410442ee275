import { existsSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from './package-root';

/**
 * The `node` arguments that run a TypeScript source through tsx, as a loader: tsx's own CLI runs
 * the program in a grandchild, which a signal sent to the child does not reach.
 */
export function throughTsx(source: string): string[] {
  return ['--import', 'tsx', source];
}

/**
 * The `node` arguments that start another script of this repository (`bin/ops.ts`,
 * `dev/devchain-cli.ts`, named from the repository's root) the way the caller itself runs:
 * when the caller (its `__filename`) is a compiled `.js` of a build (`.build/tsc`, `dist/`), the
 * script compiled in that same build, with no TypeScript to compile at its start; otherwise its
 * source through tsx. Paths are absolute, so the child's working directory only has to be inside
 * the repository (for tsx to resolve).
 */
export function scriptStartArgs(source: string, callerFile: string): string[] {
  if (path.extname(callerFile) !== '.js') return throughTsx(path.join(packageRoot(callerFile), source));
  const compiled = source.replace(/\.ts$/, '.js');
  for (let dir = path.dirname(callerFile); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, compiled))) return [path.join(dir, compiled)];
    if (path.dirname(dir) === dir) throw new Error(`no compiled ${compiled} in the build above ${callerFile}`);
  }
}
