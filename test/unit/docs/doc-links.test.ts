import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** The Markdown documents of the repository a reader follows links in. */
function documents(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', 'client/README.md', ...docs];
}

/** The text outside fenced code blocks and inline code: a link shown as code is not followed. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2... */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every relative link and image of a document: `[text](target)`, target without a scheme. */
function relativeLinks(doc: string): { target: string; file: string; anchor: string }[] {
  const text = prose(fs.readFileSync(path.join(ROOT, doc), 'utf8'));
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => {
      const [file, anchor = ''] = target.split('#');
      return { target, file: file === '' ? doc : path.join(path.dirname(doc), file), anchor };
    });
}

/** A link in the README or a document that points nowhere sends the first-hour reader nowhere. */
describe('relative links in the documents resolve', () => {
  it.each(documents().map((doc) => [doc] as const))('%s: every linked file exists, and every #anchor of a Markdown file is one of its headings', (doc) => {
    const broken: string[] = [];
    for (const { target, file, anchor } of relativeLinks(doc)) {
      const full = path.join(ROOT, file);
      if (!fs.existsSync(full)) broken.push(`${target}: no file ${file}`);
      else if (anchor !== '' && file.endsWith('.md') && !anchors(fs.readFileSync(full, 'utf8')).has(anchor))
        broken.push(`${target}: no heading #${anchor} in ${file}`);
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks (the README links docs/TESTING.md and its own sections)', () => {
    const targets = relativeLinks('README.md').map((l) => l.target);
    expect(targets).toEqual(expect.arrayContaining(['docs/TESTING.md', '#try-it', '#a-maker-bot', 'docs/OPERATIONS.md#queue-dashboard-opsqueues']));
  });
});
