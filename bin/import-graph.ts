import path from 'node:path';
import madge from 'madge';

/** Every import between the files read: file -> the files it imports, paths relative to the tree's root, `/`-separated. */
export type ImportGraph = Readonly<Record<string, readonly string[]>>;

/**
 * Reads the imports of the `.ts` files under `dirs` of `root` (type-only imports too: a type
 * ties two files as much as a value does). `tsConfig` resolves path aliases when given.
 */
export async function readImportGraph(root: string, dirs: readonly string[], tsConfig?: string): Promise<{ graph: ImportGraph; fileCycles: string[][] }> {
  const result = await madge(
    dirs.map((d) => path.join(root, d)),
    {
      baseDir: root,
      fileExtensions: ['ts'],
      tsConfig,
      excludeRegExp: [/\.d\.ts$/, /node_modules/, /client\/dist\//, /wire\/dist\//, /shared\/chain\/artifacts\//],
      detectiveOptions: { ts: { skipTypeImports: false } },
    },
  );
  return { graph: result.obj(), fileCycles: result.circular() };
}

/**
 * The child of folder `place` that holds `file`: `place/<folder>` for a file in a subfolder, the
 * file itself for one directly in `place`; null for a file outside it. `.` is the whole tree.
 */
export function childOf(place: string, file: string): string | null {
  const prefix = place === '.' ? '' : `${place}/`;
  if (!file.startsWith(prefix)) return null;
  const rest = file.slice(prefix.length).split('/');
  return rest.length === 1 ? file : `${prefix}${rest[0]}`;
}

/** One arrow between two children of a folder, with the file imports that draw it. */
export interface FolderArrow {
  from: string;
  to: string;
  imports: [string, string][];
}

/** The arrows between the children of `place`: an import from a file of one child to a file of another. */
export function folderArrows(graph: ImportGraph, place: string): FolderArrow[] {
  const arrows = new Map<string, FolderArrow>();
  for (const [file, deps] of Object.entries(graph)) {
    const from = childOf(place, file);
    if (from === null) continue;
    for (const dep of deps) {
      const to = childOf(place, dep);
      if (to === null || to === from) continue;
      const key = `${from}\0${to}`;
      const arrow = arrows.get(key) ?? { from, to, imports: [] };
      arrow.imports.push([file, dep]);
      arrows.set(key, arrow);
    }
  }
  return [...arrows.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/** Children of one folder that import each other in a loop, and the arrows between them. */
export interface FolderCycle {
  folder: string;
  members: string[];
  arrows: FolderArrow[];
}

/** `place` and every folder under it that holds a file of the graph. */
function foldersUnder(graph: ImportGraph, place: string): string[] {
  const folders = new Set<string>([place]);
  const prefix = place === '.' ? '' : `${place}/`;
  for (const file of Object.keys(graph)) {
    if (!file.startsWith(prefix)) continue;
    const parts = file.slice(prefix.length).split('/');
    for (let i = 1; i < parts.length; i++) folders.add(`${prefix}${parts.slice(0, i).join('/')}`);
  }
  return [...folders].sort();
}

/** Strongly connected groups of more than one node (Tarjan's algorithm). */
function loops(nodes: readonly string[], next: (n: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return found;
}

/**
 * Loops between folders: for `place` and every folder under it, the children (subfolders and
 * files) that reach each other through imports. Files may be free of cycles while their folders
 * are not (a imports b/x, b/y imports a): such a loop means neither folder can be read, moved or
 * tested without the other.
 */
export function folderCycles(graph: ImportGraph, place: string): FolderCycle[] {
  const cycles: FolderCycle[] = [];
  for (const folder of foldersUnder(graph, place)) {
    const arrows = folderArrows(graph, folder);
    const next = new Map<string, string[]>();
    for (const a of arrows) next.set(a.from, [...(next.get(a.from) ?? []), a.to]);
    const nodes = [...new Set(arrows.flatMap((a) => [a.from, a.to]))].sort();
    for (const members of loops(nodes, (n) => next.get(n) ?? [])) {
      cycles.push({ folder, members, arrows: arrows.filter((a) => members.includes(a.from) && members.includes(a.to)) });
    }
  }
  return cycles;
}

/** One line per loop, naming the file imports that close it: what the dependency lint prints. */
export function describeFolderCycle(c: FolderCycle): string {
  const imports = c.arrows.flatMap((a) => a.imports.map(([f, d]) => `${f} -> ${d}`));
  return `folder cycle in ${c.folder === '.' ? 'the tree' : `${c.folder}/`}: ${c.members.join(' <-> ')} (${imports.join('; ')})`;
}
