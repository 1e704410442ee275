import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const PROTOCOL = path.join(ROOT, 'shared/protocol');
/** The only code of ours the protocol may use: the validation toolkit and the wire package (typed data, schemas, integer bounds). */
const ALLOWED = [PROTOCOL, path.join(ROOT, 'shared/platform/validation'), path.join(ROOT, 'wire/src')];

describe('shared/protocol stands alone', () => {
  it('imports nothing of ours but platform validation and the wire package', () => {
    const outside: string[] = [];
    for (const file of readdirSync(PROTOCOL).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(path.join(PROTOCOL, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']*)'/g)) {
        const target = path.resolve(PROTOCOL, spec);
        if (!ALLOWED.some((dir) => target === dir || target.startsWith(`${dir}/`))) outside.push(`${file} -> ${spec}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
