import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT, sourceFiles } from './source-files';
import { TABLE_OWNERS } from './sql-owners';

/** Where the service's own code runs SQL: the roles, shared/ and bin/ (benches and dev tooling seed tables as tests do). */
const SERVER_CODE = ['shared/', 'api/', 'socket/', 'workers/', 'indexer/', 'bin/'];

/**
 * A file that may hold SQL: a repository (`*.repository.ts`), a domain's SQL literals
 * (`*.sql.ts`), a state module (`*-state.ts`, the one writer of its `state` column), and the
 * indexer's store, every file of which is the indexer's repository.
 */
export function isSqlFile(file: string): boolean {
  return /\.(repository|sql)\.ts$|-state\.ts$/.test(file) || file.startsWith('indexer/store/');
}

/** The tables the migrations create. */
function migratedTables(): string[] {
  const dir = path.join(ROOT, 'migrations');
  const text = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .join('\n');
  return [...new Set([...text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"?([a-z_][a-z0-9_]*)/g)].map((m) => m[1]))].sort();
}

/** The text of every string and template literal of a file (a template's substitutions as `$x`). */
function literals(file: string): string[] {
  const src = ts.createSourceFile(file, readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) out.push(n.text);
    else if (ts.isTemplateExpression(n)) out.push(n.head.text + n.templateSpans.map((s) => `$x${s.literal.text}`).join(''));
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

const STATEMENT = /\b(?:SELECT|INSERT INTO|UPDATE|DELETE FROM)\b/;

/** The tables a piece of SQL reads and writes. */
function tablesOf(sql: string, known: ReadonlySet<string>): { reads: string[]; writes: string[] } {
  const named = (re: RegExp) => [...sql.matchAll(re)].map((m) => m[1]).filter((t) => known.has(t));
  const writes = named(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+([a-z_][a-z0-9_]*)/g);
  const reads = named(/\b(?:FROM|JOIN|USING)\s+([a-z_][a-z0-9_]*)/g).filter((t) => !writes.includes(t));
  return { reads: [...new Set(reads)], writes: [...new Set(writes)] };
}

/** Every use of a table by SQL in the server code: `file: reads|writes table`. */
function sqlUses(): { file: string; table: string; write: boolean }[] {
  const known = new Set(Object.keys(TABLE_OWNERS));
  const files = sourceFiles()
    .map((f) => f.split(path.sep).join('/'))
    .filter((f) => f.endsWith('.ts') && SERVER_CODE.some((d) => f.startsWith(d)));
  return files.flatMap((file) =>
    literals(file)
      .filter((s) => STATEMENT.test(s) || /\b(?:FROM|JOIN)\s+[a-z_]+/.test(s))
      .flatMap((sql) => {
        const { reads, writes } = tablesOf(sql, known);
        return [...reads.map((table) => ({ file, table, write: false })), ...writes.map((table) => ({ file, table, write: true }))];
      }),
  );
}

/** SQL on a table lives in its owner's SQL files; a declared reader's SQL files may read it (docs/ARCHITECTURE.md). */
describe('SQL lives in its owner', () => {
  const uses = sqlUses();

  it('finds the SQL', () => {
    expect(uses.length).toBeGreaterThan(100);
    expect(uses).toContainEqual({ file: 'shared/quotes/quote.repository.ts', table: 'quotes', write: true });
  });

  it('knows the owner of every table the migrations create, and of no other', () => {
    expect(Object.keys(TABLE_OWNERS).sort()).toEqual(migratedTables());
  });

  it("runs SQL on a table only in its owner's SQL files (a declared reader's, to read it)", () => {
    const misplaced = uses
      .filter(({ file, table, write }) => {
        const { owners, readers = [] } = TABLE_OWNERS[table];
        const allowed = write ? owners : [...owners, ...readers];
        return !(isSqlFile(file) && allowed.some((d) => file.startsWith(d)));
      })
      .map(({ file, table, write }) => `${file} ${write ? 'writes' : 'reads'} ${table}`);
    expect([...new Set(misplaced)].sort()).toEqual([]);
  });

  it('declares no reader that reads nothing', () => {
    const unused = Object.entries(TABLE_OWNERS).flatMap(([table, { readers = [] }]) =>
      readers.filter((r) => !uses.some((u) => u.table === table && !u.write && u.file.startsWith(r) && isSqlFile(u.file))).map((r) => `${table} <- ${r}`),
    );
    expect(unused).toEqual([]);
  });
});
