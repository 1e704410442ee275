import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
/** The layers under the domains (bin/lint-deps.ts): every other folder of shared/ is a domain. */
const BELOW_DOMAINS = new Set(['platform', 'protocol', 'chain']);
/** Not the project's files: dependencies, build output, compiled contracts, tool caches. */
const NOT_OURS = new Set(['node_modules', '.git', 'dist', 'coverage', 'cache', 'artifacts']);
/** Design or style documents of other repositories: the project's own docs/ are its reference. */
const FOREIGN_DOCS = /\b(?:DESIGN|STYLE)\.md\b/;

function projectFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (NOT_OURS.has(e.name)) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return projectFiles(full);
    return e.isFile() && /\.(ts|js|cjs|mjs|md|json|sol|html|ya?ml|sh)$|^Dockerfile$/.test(e.name) ? [full] : [];
  });
}

describe('docs/ARCHITECTURE.md', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('The domains\n')) ?? '';
  const rows = new Map([...section.matchAll(/^\| `shared\/([a-z0-9-]+)\/` \| (.*) \|$/gm)].map((m) => [m[1], m[2].trim()]));
  const domains = readdirSync(path.join(ROOT, 'shared'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !BELOW_DOMAINS.has(e.name))
    .map((e) => e.name);

  it('lists every domain folder of shared/ in "The domains", each with what it is, and no folder that is not one', () => {
    expect(domains.length).toBeGreaterThan(0);
    expect(domains.filter((d) => !rows.has(d))).toEqual([]);
    expect([...rows.keys()].filter((d) => !domains.includes(d))).toEqual([]);
    expect([...rows].filter(([, purpose]) => purpose.length < 20).map(([d]) => d)).toEqual([]);
  });

  it("names every folder of indexer/ (its stages, and types/ under them) in the indexer's row", () => {
    const row = doc.split('\n').find((l) => l.startsWith('| `indexer/` |')) ?? '';
    const stages = readdirSync(path.join(ROOT, 'indexer'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(stages.length).toBeGreaterThan(5);
    expect(stages.filter((d) => !row.includes(`\`${d}/\``))).toEqual([]);
  });

  it('names every domain in its layer drawing', () => {
    const drawing = doc.slice(doc.indexOf('```'), doc.indexOf('```', doc.indexOf('```') + 3));
    expect(domains.filter((d) => !drawing.includes(`shared/${d}`))).toEqual([]);
  });
});

describe("the project's references", () => {
  it('no code comment, test or doc cites a design or style document this repository does not have', () => {
    const files = projectFiles(ROOT);
    expect(files.length).toBeGreaterThan(100);
    const citing = files.filter((f) => FOREIGN_DOCS.test(readFileSync(f, 'utf8'))).map((f) => path.relative(ROOT, f));
    expect(citing).toEqual([]);
  });
});
