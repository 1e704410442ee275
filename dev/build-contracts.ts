import path from 'node:path';
import { ARTIFACTS_DIR, buildArtifacts, REPO_ROOT } from './contract-artifacts';

/**
 * `npm run contracts:build`: compiles shared/chain/contracts/*.sol with solc-js into
 * shared/chain/artifacts (ABI + bytecode JSON per contract). `--force` recompiles even when the
 * cached artifacts match the sources. Tests and `npm start` compile on demand anyway; this is
 * for looking at the output or warming the cache.
 */
function main(argv: string[]): number {
  const started = Date.now();
  const result = buildArtifacts({ force: argv.includes('--force') });
  const where = path.relative(REPO_ROOT, ARTIFACTS_DIR);
  process.stdout.write(
    `${result.compiled ? 'compiled' : 'up to date'}: ${result.contracts.length} contracts in ${where} ` +
      `(sources ${result.hash.slice(0, 12)}, ${Date.now() - started} ms)\n`,
  );
  return 0;
}

try {
  process.exit(main(process.argv.slice(2)));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
