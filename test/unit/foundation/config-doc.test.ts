import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_KEYS } from '../../../shared/platform/config';

describe('docs/CONFIGURATION.md', () => {
  const doc = readFileSync(path.resolve(__dirname, '../../../docs/CONFIGURATION.md'), 'utf8');

  it('documents every configuration key, each with a meaning', () => {
    const keys = CONFIG_KEYS;
    const rows = new Map([...doc.matchAll(/^\| `([A-Z0-9_]+)` \| (.+?) \| (.*) \|$/gm)].map((m) => [m[1], m[3].trim()]));
    const missing = keys.filter((k) => !rows.has(k));
    expect(missing).toEqual([]);
    const blank = [...rows].filter(([, meaning]) => meaning.length === 0).map(([k]) => k);
    expect(blank).toEqual([]);
  });
});
