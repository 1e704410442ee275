import path from 'node:path';
import { describeFolderCycle, folderCycles, readImportGraph } from '../../../bin/import-graph';
import { FOLDER_CYCLES_CHECKED } from '../../../bin/lint-deps';

/**
 * The dependency lint's folder-level check on a small tree whose files import each other
 * without a cycle while their folders do: a <-> b at the top (one way by a type import alone),
 * d/x <-> d/y one level down, and c -> a one way.
 */
const FIXTURE = path.join(__dirname, 'fixtures/folder-cycles');

describe('dependency lint: folder cycles', () => {
  let graph: Awaited<ReturnType<typeof readImportGraph>>;
  beforeAll(async () => {
    graph = await readImportGraph(FIXTURE, ['a', 'b', 'c', 'd']);
  });

  it('reads the fixture with no cycle between files', () => {
    expect(Object.keys(graph.graph).sort()).toEqual([
      'a/four.ts',
      'a/one.ts',
      'b/three.ts',
      'b/two.ts',
      'c/five.ts',
      'd/x/p.ts',
      'd/x/s.ts',
      'd/y/q.ts',
      'd/y/r.ts',
    ]);
    expect(graph.fileCycles).toEqual([]);
  });

  it('finds each loop between folders, at every depth, with the imports that close it', () => {
    const cycles = folderCycles(graph.graph, '.');
    expect(cycles.map((c) => ({ folder: c.folder, members: c.members }))).toEqual([
      { folder: '.', members: ['a', 'b'] },
      { folder: 'd', members: ['d/x', 'd/y'] },
    ]);
    expect(describeFolderCycle(cycles[0])).toBe('folder cycle in the tree: a <-> b (a/one.ts -> b/two.ts; b/three.ts -> a/four.ts)');
    expect(describeFolderCycle(cycles[1])).toBe('folder cycle in d/: d/x <-> d/y (d/x/p.ts -> d/y/q.ts; d/y/r.ts -> d/x/s.ts)');
  });

  it('looks only under the folder it is given', () => {
    expect(folderCycles(graph.graph, 'd').map((c) => c.members)).toEqual([['d/x', 'd/y']]);
    expect(folderCycles(graph.graph, 'c')).toEqual([]);
  });

  it('is run by the lint over the whole tree, every folder at every depth', () => {
    expect(FOLDER_CYCLES_CHECKED).toEqual(['.']);
  });
});
