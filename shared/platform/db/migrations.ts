import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { MigrationInterface } from 'typeorm';

type MigrationClass = new () => MigrationInterface;

export const MIGRATIONS_DIR = path.resolve(__dirname, '../../../migrations');

/**
 * Loads every migration class from `migrations/`, ordered by the timestamp that starts each
 * file name. Plain `require` works the same under tsx, jest and compiled output.
 */
export function loadMigrations(dir = MIGRATIONS_DIR): MigrationClass[] {
  const files = readdirSync(dir)
    .filter((f) => /^\d{13}-[a-z0-9-]+\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'))
    .sort();
  const out: MigrationClass[] = [];
  for (const f of files) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(path.join(dir, f)) as Record<string, unknown>;
    const classes = Object.values(mod).filter((v): v is MigrationClass => typeof v === 'function');
    if (classes.length !== 1) throw new Error(`migration ${f} must export exactly one class`);
    out.push(classes[0]);
  }
  return out;
}
