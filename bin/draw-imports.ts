import { readFileSync } from 'node:fs';
import path from 'node:path';
import { childOf, folderArrows, folderCycles, readImportGraph, type ImportGraph } from './import-graph';
import { ROOTS } from './lint-deps';

/**
 * `npx tsx bin/draw-imports.ts [FOLDER]`: the import graph between the children of FOLDER (its
 * subfolders and its own files; `.`, the default, is the whole tree) as a Mermaid flowchart,
 * the drawing docs/HOUSE.md keeps. An arrow A --> B: files of A import files of B, labelled with
 * how many imports; an arrow that closes a loop between folders is drawn red. Reads the same
 * files as the dependency lint.
 */
const ROOT = path.resolve(__dirname, '..');

function linesOf(file: string): number {
  return readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;
}

export function mermaid(graph: ImportGraph, place: string): string {
  const files = Object.keys(graph).filter((f) => childOf(place, f) !== null);
  const children = new Map<string, { files: number; lines: number }>();
  for (const f of files) {
    const c = childOf(place, f)!;
    const n = children.get(c) ?? { files: 0, lines: 0 };
    n.files++;
    n.lines += linesOf(f);
    children.set(c, n);
  }
  const names = [...children.keys()].sort();
  const id = (c: string) => `n${names.indexOf(c)}`;
  const short = (c: string) => (place === '.' ? c : c.slice(place.length + 1));
  const looping = new Set(
    folderCycles(graph, place)
      .filter((c) => c.folder === place)
      .flatMap((c) => c.arrows.map((a) => `${a.from}\0${a.to}`)),
  );
  const out = ['```mermaid', 'flowchart TD'];
  for (const c of names) {
    const { files: n, lines } = children.get(c)!;
    const label = c.endsWith('.ts') ? `${short(c)}<br/>${lines} lines` : `${short(c)}/<br/>${n} ${n === 1 ? 'file' : 'files'}, ${lines} lines`;
    out.push(`  ${id(c)}["${label}"]`);
  }
  const red: number[] = [];
  folderArrows(graph, place).forEach((a, i) => {
    out.push(`  ${id(a.from)} -->|${a.imports.length}| ${id(a.to)}`);
    if (looping.has(`${a.from}\0${a.to}`)) red.push(i);
  });
  if (red.length > 0) out.push(`  linkStyle ${red.join(',')} stroke:#d00,stroke-width:2px`);
  out.push('```');
  return out.join('\n');
}

async function main(): Promise<void> {
  const place = (process.argv[2] ?? '.').replace(/\/+$/, '') || '.';
  const { graph } = await readImportGraph(ROOT, ROOTS, path.join(ROOT, 'tsconfig.json'));
  process.stdout.write(`${mermaid(graph, place)}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`draw-imports failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(2);
  });
}
