import path from 'node:path';
import madge from 'madge';

/**
 * Enforces DESIGN.md's dependency rules and forbids import cycles:
 * - shared/ imports none of api/, workers/, indexer/, bin/;
 * - api/, workers/ and indexer/ never import each other (they meet in Postgres, Redis and shared/);
 * - migrations/ import nothing of ours: they are frozen history and must not change when code does.
 */
const ROOT = path.resolve(__dirname, '..');
const ROOTS = ['api', 'workers', 'indexer', 'shared', 'migrations', 'bin'];

const FORBIDDEN: Record<string, string[]> = {
  shared: ['api', 'workers', 'indexer', 'bin', 'migrations'],
  api: ['workers', 'indexer', 'bin'],
  workers: ['api', 'indexer', 'bin'],
  indexer: ['api', 'workers', 'bin'],
  migrations: ['api', 'workers', 'indexer', 'shared', 'bin'],
};

const top = (file: string) => file.split('/')[0];

async function main(): Promise<number> {
  const result = await madge(ROOTS.map((r) => path.join(ROOT, r)), {
    baseDir: ROOT,
    fileExtensions: ['ts'],
    tsConfig: path.join(ROOT, 'tsconfig.json'),
    excludeRegExp: [/\.d\.ts$/, /node_modules/, /shared\/chain\/artifacts/],
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
  const problems: string[] = [];
  const graph = result.obj();
  for (const [file, deps] of Object.entries(graph)) {
    const banned = FORBIDDEN[top(file)] ?? [];
    for (const dep of deps) if (banned.includes(top(dep))) problems.push(`${file} imports ${dep} (${top(file)}/ must not import ${top(dep)}/)`);
  }
  for (const cycle of result.circular()) problems.push(`import cycle: ${cycle.join(' -> ')} -> ${cycle[0]}`);
  const files = Object.keys(graph).length;
  if (problems.length > 0) {
    process.stderr.write(`dependency lint failed (${problems.length}):\n  ${problems.join('\n  ')}\n`);
    return 1;
  }
  process.stdout.write(`dependency lint: ${files} files, no cycles, layering respected\n`);
  return 0;
}

main().then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`dependency lint crashed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(2);
});
