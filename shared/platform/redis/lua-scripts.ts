import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../files';
import { LuaScript } from './lua-script';

/**
 * Every Lua script the service runs in Redis is a file of this folder, `<name>-<keys>.lua`: its
 * name, and how many KEYS it takes (the rest of its arguments are ARGV), as BullMQ keeps its
 * commands. Its header says what it does and what each key and argument is. Found from the
 * folder holding package.json, so the same files serve a tsx run, jest and the compiled service
 * (dist/ beside them; the Dockerfile's runtime stage copies the folder).
 */
export const LUA_DIR = path.join(packageRoot(__dirname), 'shared', 'platform', 'redis', 'lua');

const FILE_NAME = /^([a-z][a-z0-9-]*)-(\d+)\.lua$/;

let files: ReadonlyMap<string, { file: string; keys: number }> | null = null;
const loaded = new Map<string, LuaScript>();

/** The scripts of LUA_DIR by name, with their file and key count; read once. */
export function luaScriptFiles(): ReadonlyMap<string, { file: string; keys: number }> {
  files ??= new Map(
    readdirSync(LUA_DIR)
      .map((file) => FILE_NAME.exec(file))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], { file: m[0], keys: Number(m[2]) }] as const),
  );
  return files;
}

/** The script `name` (the file `<name>-<keys>.lua`), read once; throws when there is none. */
export function luaScript(name: string): LuaScript {
  let script = loaded.get(name);
  if (!script) {
    const found = luaScriptFiles().get(name);
    if (!found) throw new Error(`no Lua script ${name} (<name>-<keys>.lua) in ${LUA_DIR}`);
    script = new LuaScript(readFileSync(path.join(LUA_DIR, found.file), 'utf8'), found.keys);
    loaded.set(name, script);
  }
  return script;
}
