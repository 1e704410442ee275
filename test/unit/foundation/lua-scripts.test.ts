import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LUA_DIR, luaScript, luaScriptFiles } from '../../../shared/platform/redis';

const ROOT = path.resolve(__dirname, '../../..');
/** The folders of the service's code (what `npm run build` compiles). */
const CODE = ['wire', 'api', 'socket', 'workers', 'indexer', 'shared', 'bin'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'artifacts' ? [] : tsFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

const code = CODE.flatMap((d) => tsFiles(path.join(ROOT, d))).map((f) => ({ file: path.relative(ROOT, f), text: readFileSync(f, 'utf8') }));
const named = code.flatMap(({ file, text }) => [...text.matchAll(/\bluaScript\('([^']+)'\)/g)].map((m) => ({ file, name: m[1] })));

/**
 * The service's Lua scripts are the files of one folder, `<name>-<keys>.lua` (shared/platform/redis/lua-scripts.ts):
 * each is named by its file, takes the keys its name says, and is used; no script hides in a
 * TypeScript string.
 */
describe('Lua scripts', () => {
  const files = readdirSync(LUA_DIR);

  it('are every file of their folder, each named <name>-<keys>.lua', () => {
    expect(path.relative(ROOT, LUA_DIR)).toBe(path.join('shared', 'platform', 'redis', 'lua'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !/^[a-z][a-z0-9-]*-\d+\.lua$/.test(f))).toEqual([]);
    expect(luaScriptFiles().size).toBe(files.length);
  });

  it.each(files)('%s: its key count is the highest KEYS[n] it reads, and its header says what it does', (file) => {
    const { keys } = [...luaScriptFiles().values()].find((f) => f.file === file)!;
    const source = readFileSync(path.join(LUA_DIR, file), 'utf8');
    const read = [...source.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(Math.max(...read)).toBe(keys);
    expect(source).toMatch(/^-- \S/);
    expect(source).toMatch(/^-- KEYS: /m);
  });

  it('are each loaded by name where the code runs them, and every file is run somewhere', () => {
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter(({ name }) => !luaScriptFiles().has(name))).toEqual([]);
    expect([...luaScriptFiles().keys()].filter((name) => !named.some((n) => n.name === name))).toEqual([]);
    for (const { name } of named) expect(luaScript(name).source).toBe(readFileSync(path.join(LUA_DIR, luaScriptFiles().get(name)!.file), 'utf8'));
  });

  it('never hide in a TypeScript string, and are run through the loader, not EVAL of a string', () => {
    expect(code.filter(({ text }) => /redis\.call\(/.test(text)).map((c) => c.file)).toEqual([]);
    expect(code.filter(({ text }) => /\.eval(sha)?\(/.test(text)).map((c) => c.file)).toEqual(['shared/platform/redis/lua-script.ts']);
  });

  it('refuses a name with no file', () => {
    expect(() => luaScript('no-such-script')).toThrow(/no Lua script no-such-script/);
  });
});
