import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../../..');

/** A tsconfig file as tsc reads it (extends resolved, file list expanded). */
function parsed(name: string): ts.ParsedCommandLine {
  const file = path.join(ROOT, name);
  const read = ts.readConfigFile(file, ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const config = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, undefined, file);
  if (config.errors.length > 0) throw new Error(config.errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  return config;
}

/** The options that decide where a file lands or which files exist, not what a file compiles to. */
const NOT_EMIT = ['outDir', 'noEmit', 'types', 'incremental', 'tsBuildInfoFile', 'configFilePath'];

function emitOptions(o: ts.CompilerOptions): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !NOT_EMIT.includes(k)));
}

/** The folder every emitted file is laid out under (tsc's rootDir when none is set: the deepest folder holding every source). */
function commonRoot(files: string[]): string {
  const dirs = files.filter((f) => !f.endsWith('.d.ts')).map((f) => path.dirname(path.resolve(f)));
  return dirs.reduce((common, dir) => {
    while (dir !== common && !dir.startsWith(`${common}${path.sep}`)) common = path.dirname(common);
    return common;
  });
}

/** Jest's globals (@types/jest), which the typecheck's program has and the production build's does not. */
const JEST_GLOBALS = new Set([
  'jest',
  'expect',
  'describe',
  'fdescribe',
  'xdescribe',
  'it',
  'fit',
  'xit',
  'test',
  'xtest',
  'beforeAll',
  'afterAll',
  'beforeEach',
  'afterEach',
  'fail',
  'pending',
]);

/** Jest globals a file uses without importing or declaring that name itself (as a value, a call or a type's namespace). */
function jestGlobalsUsed(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const declared = new Set<string>();
  const used: string[] = [];
  const visit = (node: ts.Node): void => {
    const named = node as ts.Node & { name?: ts.Node };
    if (named.name !== undefined && ts.isIdentifier(named.name) && JEST_GLOBALS.has(named.name.text)) {
      if (ts.isPropertyAccessExpression(node) || ts.isPropertyAssignment(node) || ts.isMethodDeclaration(node) || ts.isPropertySignature(node)) {
        // a property named `it` or `test` is no global
      } else declared.add(named.name.text);
    }
    if (ts.isIdentifier(node) && JEST_GLOBALS.has(node.text)) {
      const parent = node.parent;
      const asValue = (ts.isCallExpression(parent) && parent.expression === node) || (ts.isPropertyAccessExpression(parent) && parent.expression === node);
      const asNamespace = ts.isQualifiedName(parent) && parent.left === node;
      if (asValue || asNamespace) used.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...new Set(used.filter((name) => !declared.has(name)))];
}

/**
 * The production build (`npm run build`: tsconfig.build.json -> dist/, what the Dockerfile runs)
 * and the run's build (`npm run build:test`: tsconfig.json -> .build/tsc, which the spawned roles,
 * test/e2e/compiled-roles.test.ts and the LTS pass run) are one build: what tsc emits for a file
 * depends only on the compiler options, and the production files land at the same place under
 * either folder. So the suite builds once, and this keeps it true (docs/TESTING.md, "Suite speed").
 * The production build type-checks a subset of the files with fewer ambient types: jest's
 * globals and the declarations of tooling outside the service are what it lacks, and no file of
 * the service leans on them.
 */
describe('one TypeScript build serves the tests and the image', () => {
  const test = parsed('tsconfig.json');
  const build = parsed('tsconfig.build.json');

  it('the production build compiles with the options of the typecheck, so each file compiles to the same JavaScript', () => {
    expect(emitOptions(build.options)).toEqual(emitOptions(test.options));
    expect(build.options.noEmit).not.toBe(true);
    expect(test.options.noEmit).not.toBe(true);
  });

  it('every file of the production build is in the run build, laid out from the same root (dist/bin/main.js is .build/tsc/bin/main.js)', () => {
    const all = new Set(test.fileNames);
    expect(build.fileNames.length).toBeGreaterThan(100);
    expect(build.fileNames.filter((f) => !all.has(f))).toEqual([]);
    expect(commonRoot(build.fileNames)).toBe(ROOT);
    expect(commonRoot(test.fileNames)).toBe(ROOT);
    expect(build.options.rootDir).toBe(test.options.rootDir);
  });

  it("the typecheck's extra ambient types are jest's and tooling declarations, which no production file uses", () => {
    expect({ build: build.options.types, test: test.options.types }).toEqual({ build: ['node'], test: ['node', 'jest'] });
    const inBuild = new Set(build.fileNames);
    const extraDeclarations = test.fileNames.filter((f) => f.endsWith('.d.ts') && !inBuild.has(f)).map((f) => path.relative(ROOT, f));
    // Each declares one module; the production build would fail on an import of it (no types).
    const declaredModules = extraDeclarations.flatMap((f) =>
      [...readFileSync(path.join(ROOT, f), 'utf8').matchAll(/declare module '([^']+)'/g)].map((m) => m[1]),
    );
    expect(declaredModules.length).toBe(extraDeclarations.length);
    const offenders: { file: string; uses: string[] }[] = [];
    for (const file of build.fileNames) {
      const text = readFileSync(file, 'utf8');
      const uses = [...jestGlobalsUsed(file), ...declaredModules.filter((m) => text.includes(`'${m}'`))];
      if (uses.length > 0) offenders.push({ file: path.relative(ROOT, file), uses });
    }
    expect(offenders).toEqual([]);
  });

  it('the jest-globals check sees a jest global used without a declaration, and not a property or a local of that name', () => {
    const probe = (text: string) => {
      const file = path.join(ROOT, '.build', `build-config-probe-${process.pid}.ts`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      try {
        return jestGlobalsUsed(file);
      } finally {
        rmSync(file, { force: true });
      }
    };
    expect(probe('export const f = () => expect(1).toBe(1);')).toEqual(['expect']);
    expect(probe('export type M = jest.Mock;')).toEqual(['jest']);
    expect(probe('const o = { it: 1, test() { return 2; } }; export const v = o.it + o.test();')).toEqual([]);
    expect(probe('function test(x: number) { return x; } export const v = test(1);')).toEqual([]);
  });
});
