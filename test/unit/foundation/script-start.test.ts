import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageRoot, scriptStartArgs, throughTsx } from '../../../shared/platform/files';

describe('scriptStartArgs: another script of the repository, started the way its caller runs', () => {
  const root = packageRoot(__dirname);
  let build: string;
  beforeAll(() => {
    build = mkdtempSync(path.join(tmpdir(), 'script-start-'));
    mkdirSync(path.join(build, 'bin'), { recursive: true });
    mkdirSync(path.join(build, 'dev', 'scaled'), { recursive: true });
    writeFileSync(path.join(build, 'bin', 'ops.js'), '');
  });
  afterAll(() => rmSync(build, { recursive: true, force: true }));

  it('a caller run from its source starts the source through tsx as a loader, by its absolute path', () => {
    expect(scriptStartArgs('bin/ops.ts', path.join(root, 'examples', 'maker-organization.ts'))).toEqual(['--import', 'tsx', path.join(root, 'bin', 'ops.ts')]);
    expect(throughTsx('bin/main.ts')).toEqual(['--import', 'tsx', 'bin/main.ts']);
  });

  it('a compiled caller starts the script compiled in its own build, from any depth of that build', () => {
    expect(scriptStartArgs('bin/ops.ts', path.join(build, 'examples', 'maker-organization.js'))).toEqual([path.join(build, 'bin', 'ops.js')]);
    expect(scriptStartArgs('bin/ops.ts', path.join(build, 'dev', 'scaled', 'stack.js'))).toEqual([path.join(build, 'bin', 'ops.js')]);
  });

  it('a compiled caller whose build lacks the script is refused by name, not started from the sources', () => {
    expect(() => scriptStartArgs('bin/main.ts', path.join(build, 'dev', 'scaled', 'stack.js'))).toThrow(
      `no compiled bin/main.js in the build above ${path.join(build, 'dev', 'scaled', 'stack.js')}`,
    );
  });
});
