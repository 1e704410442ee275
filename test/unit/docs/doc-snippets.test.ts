import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SNIPPETS = 'docs/snippets';
/** A snippet is included as `<!-- snippet: docs/snippets/<file> -->` on the line before its fenced block. */
const INCLUDE = /^<!-- snippet: (\S+) -->\n```ts\n([\s\S]*?)^```$/gm;

function includes(): { doc: string; file: string; block: string }[] {
  const docs = [
    'README.md',
    ...fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return docs.flatMap((doc) => [...fs.readFileSync(path.join(ROOT, doc), 'utf8').matchAll(INCLUDE)].map((m) => ({ doc, file: m[1], block: m[2] })));
}

/**
 * The code a document shows is the file test/e2e/maker-bot.test.ts runs (and the maker bot
 * uses): a snippet edited in one place and not the other fails here.
 */
describe('documents include their snippets verbatim', () => {
  it.each(includes().map((i) => [`${i.doc} <- ${i.file}`, i] as const))('%s', (_name, { file, block }) => {
    expect(file.startsWith(`${SNIPPETS}/`)).toBe(true);
    expect(block).toBe(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  });

  it('every snippet file is shown by some document', () => {
    const shown = new Set(includes().map((i) => i.file));
    const files = fs.readdirSync(path.join(ROOT, SNIPPETS)).map((f) => `${SNIPPETS}/${f}`);
    expect(files.filter((f) => !shown.has(f))).toEqual([]);
    expect(files.length).toBeGreaterThan(0);
  });
});
