import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { LUA_DIR } from '../../../shared/platform/redis';

const ROOT = path.resolve(__dirname, '../../..');

/** The Dockerfile's stages: name, base image and instructions (continuation lines joined). */
function stages(): { name: string; from: string; lines: string[] }[] {
  const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const out: { name: string; from: string; lines: string[] }[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) out.push({ name: from[2] ?? '', from: from[1], lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

/**
 * What the images run, read from the Dockerfile (this machine has no Docker daemon to build
 * them; test/e2e/compiled-roles.test.ts runs the same compiled entry for real): a supported
 * Node LTS, the compiled service with no TypeScript loader, and the migrations of both compose
 * files through the compiled operator CLI.
 */
describe('Dockerfile and compose commands', () => {
  it('builds on a supported Node LTS (22 or 24), not on Node 20, which reached end of life on 2026-04-30', () => {
    const bases = stages()
      .map((s) => s.from)
      .filter((f) => f.startsWith('node:'));
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toMatch(/^node:(22|24)[.-]/);
  });

  it("the runtime stage (the last, built by default) runs `node dist/bin/main.js` from the build stage's output, without tsx", () => {
    const all = stages();
    const runtime = all.at(-1)!;
    expect(runtime.name).toBe('runtime');
    expect(runtime.lines).toContain('CMD ["node", "dist/bin/main.js"]');
    expect(runtime.lines).toContain('RUN npm ci --omit=dev --no-audit --no-fund');
    expect(runtime.lines).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime.lines.join('\n')).not.toMatch(/tsx/);
    const build = all.find((s) => s.name === 'build')!;
    expect(build.lines).toContain('RUN npm run build');
  });

  it('the runtime stage holds the files the compiled service reads beside dist/: the docs guides and the Lua scripts', () => {
    const runtime = stages().at(-1)!;
    const lua = path.relative(ROOT, LUA_DIR);
    expect(runtime.lines).toContain('COPY docs/guides ./docs/guides');
    expect(runtime.lines).toContain(`COPY ${lua} ./${lua}`);
  });

  it('both compose files migrate with the compiled operator CLI in the runtime image', () => {
    for (const file of ['docker-compose.yml', 'docker-compose.scaled.yml']) {
      const doc = parse(readFileSync(path.join(ROOT, file), 'utf8')) as { services: Record<string, { command?: string[]; build?: { target?: string } }> };
      const migrate = Object.entries(doc.services).filter(([, s]) => JSON.stringify(s.command ?? []).includes('migrate'));
      expect({ file, n: migrate.length }).toEqual({ file, n: 1 });
      const [, svc] = migrate[0];
      expect({ file, command: svc.command, target: svc.build?.target }).toEqual({ file, command: ['node', 'dist/bin/ops.js', 'migrate'], target: 'runtime' });
    }
  });
});
