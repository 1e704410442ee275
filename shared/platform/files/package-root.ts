import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The folder holding the service's package.json, found by walking up from `from`. The same
 * answer whether the code runs from its sources (tsx, jest) or compiled under `dist/`, where
 * `__dirname` is one level deeper: files shipped beside the code (docs/guides, migrations) are
 * found from here, not from a relative path that holds in only one of the two layouts.
 */
export function packageRoot(from: string): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
