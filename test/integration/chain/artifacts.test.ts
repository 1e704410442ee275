import fs from 'node:fs';
import path from 'node:path';
import { ARTIFACTS_DIR, buildArtifacts, CONTRACT_NAMES, loadArtifact, sourcesHash } from '../../../dev/contract-artifacts';

/** Artifacts are compiled on demand and cached under a hash of the sources and compiler settings. */
describe('contract artifacts', () => {
  it('loads every deployable contract with ABI and bytecode', () => {
    for (const name of CONTRACT_NAMES) {
      const a = loadArtifact(name);
      expect([name, a.contractName, a.bytecode.length > 2, a.deployedBytecode.length > 2, a.abi.length > 0]).toEqual([name, name, true, true, true]);
    }
  });

  it('is fresh after a load: a second build compiles nothing', () => {
    loadArtifact('Mothership');
    const info = JSON.parse(fs.readFileSync(path.join(ARTIFACTS_DIR, 'build-info.json'), 'utf8')) as { sourcesHash: string };
    expect(info.sourcesHash).toBe(sourcesHash());
    expect(buildArtifacts().compiled).toBe(false);
  });

  it('the cache key changes with any source byte or file name', () => {
    const base = sourcesHash({ 'A.sol': 'contract A {}' });
    expect(sourcesHash({ 'A.sol': 'contract A {} ' })).not.toBe(base);
    expect(sourcesHash({ 'B.sol': 'contract A {}' })).not.toBe(base);
    expect(sourcesHash({ 'A.sol': 'contract A {}' })).toBe(base);
  });
});
