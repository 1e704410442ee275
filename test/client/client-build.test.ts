import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLIENT = path.resolve(__dirname, '../../client');

/**
 * The client is a package of its own: `npm run build` in client/ type-checks it (strict, with
 * the server's route contracts as its types) and emits the entry its package.json names.
 */
describe('client package build', () => {
  // A full tsc run over the client and the contracts it takes its types from.
  const BUILD_TIMEOUT_MS = 180000;

  it(
    '`npm run build` type-checks and emits main and types; the built entry loads',
    async () => {
      await run('npm', ['run', 'build'], { cwd: CLIENT, env: { ...process.env, npm_config_loglevel: 'error' } });
      const pkg = JSON.parse(readFileSync(path.join(CLIENT, 'package.json'), 'utf8')) as { name: string; main: string; types: string; private: boolean };
      expect(pkg.name).toBe('@options-rfq/client');
      expect(existsSync(path.join(CLIENT, pkg.types))).toBe(true);
      const built = require(path.join(CLIENT, pkg.main)) as Record<string, unknown>;
      for (const name of ['RfqClient', 'ApiError', 'RfqSocket', 'signPackageOffer', 'packageOfferTypedData', 'signSiwe', 'networkContract']) {
        expect(typeof built[name]).toBe('function');
      }
      // The declarations carry the contract types, not `any`.
      const declarations = readFileSync(path.join(CLIENT, 'dist/client/src/api-types.d.ts'), 'utf8');
      expect(declarations).toContain("typeof quoteContracts)['createQuote']");
    },
    BUILD_TIMEOUT_MS,
  );
});
