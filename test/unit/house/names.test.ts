import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { codeFiles, filesMatching, ROOT, sourceFiles } from './source-files';

/** The backticked file names of the "Names" bullet of docs/ARCHITECTURE.md that starts with `title`. */
function documentedNames(title: string): string[] {
  const doc = readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Names\n')) ?? '';
  const bullet = section.split(/^- /m).find((b) => b.startsWith(`**${title}**`)) ?? '';
  return [...bullet.matchAll(/`([a-z0-9.-]+\.ts)`/g)].map((m) => m[1]);
}

/**
 * The lines where "registry" is the word of someone else's thing: the metrics registry (ours and
 * prom-client's), zod's schema registries, the npm registry, and the REGISTRY_CACHE_MS setting
 * operators have set (its name stays; what it caches is the networks).
 */
const REGISTRY_MEANS_METRICS =
  /metrics\.registry|this\.registry|new Registry\(\)|prom-client|Prometheus registry|metrics registry|ZodRegistry|globalRegistry|z\.registry|zod registry|npm registry|registry packages|REGISTRY_CACHE_MS/i;

/**
 * Files of indexer/ that still call the networks "the registry": another change to indexer/ renames
 * them; this list only shrinks.
 */
const PENDING_REGISTRY_FILES: readonly string[] = [
  'indexer/index.ts',
  'indexer/errors.ts',
  'indexer/rpc/rpc.ts',
  'indexer/rpc/start-check.ts',
  'indexer/sync/tailer-context.ts',
  'indexer/sync/sources.ts',
  'indexer/store/indexer-store.ts',
];

/** One name, one meaning (docs/ARCHITECTURE.md, "Names"). */
describe('names', () => {
  const files = codeFiles();
  const sources = sourceFiles();
  const base = (f: string) => path.basename(f);

  it('finds the code', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(sources.length).toBeGreaterThan(100);
  });

  it('the networks service is `networks`, never `registry` (the metrics registry keeps that word)', () => {
    const pattern = /\bregistry\b[^\n]*\bNetworksService\b|\bNetworksService\b[^\n]*\bregistry\b|\b(?:services|deps|h)\.registry\b/;
    expect(filesMatching(files, pattern)).toEqual([]);
  });

  it('"registry" is the metrics registry alone, in the code, the texts clients read and the docs (the networks are networks)', () => {
    const docs = readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`);
    // Migrations are history: what they say stays as it was written.
    const texts = [...sources.filter((f) => !f.startsWith(`migrations${path.sep}`)), ...docs, 'README.md'];
    const stray = texts.flatMap((f) =>
      readFileSync(path.join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/registry/i.test(line) && !REGISTRY_MEANS_METRICS.test(line) ? [`${f}:${i + 1}`] : [])),
    );
    expect(stray.filter((at) => !PENDING_REGISTRY_FILES.some((f) => at.startsWith(`${f}:`)))).toEqual([]);
  });

  it('no two files outside test/ share a name, but the documented ones that do the same job in each folder', () => {
    const shared = documentedNames('No two files share a name');
    expect(shared).toContain('index.ts');
    const byName = new Map<string, string[]>();
    for (const f of sources) byName.set(base(f), [...(byName.get(base(f)) ?? []), f]);
    const twice = [...byName].filter(([name, where]) => where.length > 1 && !shared.includes(name)).map(([, where]) => where.sort());
    expect(twice).toEqual([]);
  });

  it('a file of one kind of thing of a subject is <subject>.<kind>.ts, never <subject>-<kind>.ts', () => {
    const kinds = new Set(sources.map((f) => /\.([a-z]+)\.ts$/.exec(base(f))?.[1]).filter((k): k is string => k !== undefined && k !== 'd'));
    expect([...kinds]).toEqual(expect.arrayContaining(['service', 'repository', 'views', 'routes', 'http']));
    const notKinds = documentedNames('Not a kind');
    expect(notKinds.length).toBeGreaterThan(0);
    const hyphenated = sources.filter((f) => {
      const kind = /-([a-z]+)\.ts$/.exec(base(f))?.[1];
      return kind !== undefined && kinds.has(kind) && !f.startsWith(`migrations${path.sep}`) && !notKinds.includes(base(f));
    });
    expect(hyphenated).toEqual([]);
  });

  it('each documented exception still exists, so the lists do not outlive their files', () => {
    const names = new Set(sources.map(base));
    expect([...documentedNames('Not a kind'), ...documentedNames('No two files share a name')].filter((n) => !names.has(n))).toEqual([]);
  });
});
