import path from 'node:path';
import { describeFolderCycle, folderCycles, readImportGraph } from './import-graph';

/**
 * Enforces the layers of docs/ARCHITECTURE.md and forbids import cycles, between files and, in
 * the whole tree (FOLDER_CYCLES_CHECKED), between folders (bin/import-graph.ts). Each file belongs to
 * one layer, named by its folder; a layer may import only the layers listed for it:
 *
 *   wire  <-  shared/platform  <-  shared/protocol  <-  shared/chain  <-  shared/<domain>  <-  roles
 *
 * - wire (the @options-rfq/wire package: typed data, field schemas, the JSON forms of bodies,
 *   answers and socket payloads, the error body) imports nothing of ours: the client ships it;
 * - platform (config, db, redis, http, queue, errors, ...) imports no protocol, domain or role;
 * - protocol is pure hashing and typed data over platform's errors and validation;
 * - chain holds ABIs, the reference contracts' sources and RPC clients, never dev tooling;
 * - domains (identity, networks, quotes, topics, indexed, ...) import each other without cycles,
 *   of files or of folders: no two folders of shared/ reach each other;
 * - the indexer's stage folders import one way (chain-events -> decode -> projectors -> store ->
 *   types): no two folders of indexer/ reach each other;
 * - roles (api, socket, workers, indexer) import shared/ and never each other;
 * - dev/ (Hardhat node, deploy, compile) is loaded only by entry points and tests, and by
 *   bin/main.ts only when DEVCHAIN asks for it (a production install has no hardhat or solc);
 * - migrations import nothing of ours but their own frozen helpers in migrations/support/
 *   (what a helper emits is part of the history of the migrations that use it);
 * - a domain (a folder of shared/ other than platform, protocol and chain) is entered only
 *   through its index.ts: no file outside shared/<domain>/ (another domain, a role, bin/,
 *   bench/, dev/) imports a file inside it but that one (domainEntry). Tests may reach inside:
 *   they test the internals. DOMAIN_BOUNDARIES narrows this for pairs kept apart altogether:
 *   shared/explore (the stream machinery and the CLOB feed) never imports shared/loans (whose
 *   loan feed plugs into Explore's streams); the role that opens streams lists both feeds
 *   (workers/explore/explore-feeds.ts);
 * - client/ (the published TypeScript client) imports only wire (as `@options-rfq/wire`) and npm
 *   packages; nothing of ours imports it but examples, tests and benchmarks;
 * - bench/ is an entry point that measures parts of the service in its own processes: it may
 *   import what bin/ may (shared/, the roles, dev/ to start a chain), the client, and of test/
 *   only the helpers in test/support/ (a chaos RPC proxy, an OTLP receiver), never a test;
 *   nothing imports bench/. The test/ files a bench reaches may import anything but bench/.
 */
const ROOT = path.resolve(__dirname, '..');
export const ROOTS = ['wire', 'api', 'socket', 'workers', 'indexer', 'shared', 'dev', 'migrations', 'bin', 'client', 'bench'];

type Layer =
  'wire' | 'platform' | 'protocol' | 'chain' | 'domain' | 'api' | 'socket' | 'workers' | 'indexer' | 'dev' | 'bin' | 'migrations' | 'client' | 'bench' | 'test';

const SHARED: Layer[] = ['wire', 'platform', 'protocol', 'chain', 'domain'];
const MAY_IMPORT: Record<Layer, Layer[]> = {
  wire: ['wire'],
  platform: ['wire', 'platform'],
  protocol: ['wire', 'platform', 'protocol'],
  chain: ['wire', 'platform', 'protocol', 'chain'],
  domain: SHARED,
  api: [...SHARED, 'api'],
  socket: [...SHARED, 'socket'],
  workers: [...SHARED, 'workers'],
  indexer: [...SHARED, 'indexer'],
  dev: [...SHARED, 'dev'],
  bin: [...SHARED, 'api', 'socket', 'workers', 'indexer', 'dev', 'bin'],
  migrations: [],
  client: ['wire', 'client'],
  bench: [...SHARED, 'api', 'socket', 'workers', 'indexer', 'dev', 'client', 'bench', 'test'],
  test: [...SHARED, 'api', 'socket', 'workers', 'indexer', 'dev', 'bin', 'migrations', 'client', 'test'],
};

/** The one folder of test/ a bench may import: the helpers, not the tests. */
export const BENCH_TEST_HELPERS = 'test/support/';

/** Why `file` may not import `dep` beyond the layer table, or null. */
export function narrowerRule(file: string, dep: string): string | null {
  if (layerOf(file) === 'bench' && layerOf(dep) === 'test' && !dep.startsWith(BENCH_TEST_HELPERS))
    return `bench/ may import test/ only from ${BENCH_TEST_HELPERS}`;
  return null;
}

/**
 * Folders in which no two subfolders (at any depth) may import each other in a loop, even when
 * no file does: the whole tree the lint reads (`.`: the top folders, shared/'s layers and
 * domains, indexer/'s stages, api/'s auth and http, bench/'s benches and their support, ...).
 */
export const FOLDER_CYCLES_CHECKED: readonly string[] = ['.'];

/** The domain a file of shared/ belongs to (`shared/<domain>/`), or null for a layer, a file directly in shared/, or one outside. */
export function domainOf(file: string): string | null {
  const [top, second, third] = file.split('/');
  if (top !== 'shared' || third === undefined || LAYER_FOLDERS.includes(second)) return null;
  return `shared/${second}/`;
}

/** The folders of shared/ that are layers under the domains, not domains. */
const LAYER_FOLDERS: readonly string[] = ['platform', 'protocol', 'chain'];

/**
 * Imports of a file inside a domain from outside it that are waived until their importer is
 * changed: the indexer's, which another change to indexer/ moves to the domains' index.ts (each
 * name it imports is exported there already). A waiver no import uses any more fails the lint, so
 * the list only shrinks.
 */
export const ENTRY_WAIVERS: readonly string[] = [
  'indexer/errors.ts -> shared/indexed/indexer-error-codes.ts',
  'indexer/publish/loan-publisher.ts -> shared/loans/health.ts',
  'indexer/publish/loan-publisher.ts -> shared/loans/loan-feed.ts',
  'indexer/publish/loan-publisher.ts -> shared/loans/loan.repository.ts',
  'indexer/publish/loan-publisher.ts -> shared/loans/loan.views.ts',
  'indexer/rpc/provider-stats.ts -> shared/indexed/indexer-checks.ts',
  'indexer/store/indexer-store.ts -> shared/indexed/resync-requests.repository.ts',
  'indexer/store/loan-writer.ts -> shared/loans/health.ts',
  'indexer/store/status-store.ts -> shared/indexed/indexer-checks.ts',
  'indexer/store/status-store.ts -> shared/indexed/indexer-error-codes.ts',
  'indexer/sync/audit.ts -> shared/indexed/indexer-checks.ts',
];

/** Why `file` may not import `dep` of a domain it is outside of, or null: a domain is entered through its index.ts. */
export function domainEntry(file: string, dep: string): string | null {
  const domain = domainOf(dep);
  if (domain === null || file.startsWith(domain) || dep === `${domain}index.ts`) return null;
  if (ENTRY_WAIVERS.includes(`${file} -> ${dep}`)) return null;
  return `${domain} is entered only through ${domain}index.ts`;
}

/**
 * Pairs of domains kept apart altogether, beyond domainEntry: a file under `from` never imports
 * a file under `to`, not even its index.
 */
export const DOMAIN_BOUNDARIES: readonly { from: string; to: string }[] = [{ from: 'shared/explore/', to: 'shared/loans/' }];

/** The boundary an import of `dep` by `file` crosses, or null. */
export function boundaryBroken(file: string, dep: string): string | null {
  for (const b of DOMAIN_BOUNDARIES) if (file.startsWith(b.from) && dep.startsWith(b.to)) return `${b.from} must not import ${b.to}`;
  return domainEntry(file, dep);
}

export function layerOf(file: string): Layer {
  const [top, second] = file.split('/');
  if (top === 'shared') {
    if (second === 'platform' || second === 'protocol' || second === 'chain') return second;
    return 'domain';
  }
  return top as Layer;
}

async function main(): Promise<number> {
  const { graph, fileCycles } = await readImportGraph(ROOT, ROOTS, path.join(ROOT, 'tsconfig.json'));
  const problems: string[] = [];
  for (const [file, deps] of Object.entries(graph)) {
    const from = layerOf(file);
    const allowed = MAY_IMPORT[from];
    if (!allowed) {
      problems.push(`${file} is in no known layer`);
      continue;
    }
    for (const dep of deps) {
      const to = layerOf(dep);
      const frozenHelper = from === 'migrations' && dep.startsWith('migrations/support/');
      if (!allowed.includes(to) && !frozenHelper) problems.push(`${file} imports ${dep} (${from} must not import ${to})`);
      const broken = boundaryBroken(file, dep) ?? narrowerRule(file, dep);
      if (broken) problems.push(`${file} imports ${dep} (${broken})`);
    }
  }
  const used = new Set(Object.entries(graph).flatMap(([file, deps]) => deps.map((dep) => `${file} -> ${dep}`)));
  for (const waiver of ENTRY_WAIVERS) if (!used.has(waiver)) problems.push(`entry waiver no import uses any more, remove it from ENTRY_WAIVERS: ${waiver}`);
  for (const cycle of fileCycles) problems.push(`import cycle: ${cycle.join(' -> ')} -> ${cycle[0]}`);
  for (const place of FOLDER_CYCLES_CHECKED) for (const cycle of folderCycles(graph, place)) problems.push(describeFolderCycle(cycle));
  const files = Object.keys(graph).length;
  if (problems.length > 0) {
    process.stderr.write(`dependency lint failed (${problems.length}):\n  ${problems.join('\n  ')}\n`);
    return 1;
  }
  process.stdout.write(`dependency lint: ${files} files, no cycles of files or of folders, layers and domain boundaries respected\n`);
  return 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`dependency lint crashed: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(2);
    },
  );
}
