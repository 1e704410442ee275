import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const CLIENT = path.join(ROOT, 'client');
const WIRE = path.join(ROOT, 'wire');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const quiet = { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' };

/** What a consumer writes: the client and the wire types, used type-wise and at run time. */
const CONSUMER = `
import { RfqClient, ApiError, signPackageOffer, packageOfferTypedData, type CreatedQuote, type MakerRfqRequest, type ErrorBody } from '@options-rfq/client';
import { errorBodySchema, orderIntentHash, type QuoteRequestBody } from '@options-rfq/wire';

const api = new RfqClient('http://127.0.0.1:8080');
const body: QuoteRequestBody = {
  chain_id: 31337,
  taker_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  polarity: 'b_is_buy',
  expires_in: 60,
  intents: [],
};
export async function create(): Promise<string> {
  const created: CreatedQuote = await api.createQuote(body);
  return created.quote.id;
}
export function onRequest(e: MakerRfqRequest): number {
  return e.seq + e.legs.length;
}
export function code(err: unknown): string | undefined {
  const parsed: ErrorBody | undefined = errorBodySchema.safeParse(err).data;
  return err instanceof ApiError ? err.code : parsed?.code;
}
export const loaded = [signPackageOffer, packageOfferTypedData, orderIntentHash].every((f) => typeof f === 'function');
// @ts-expect-error a quote body needs its legs
export const bad: QuoteRequestBody = { chain_id: 1, taker_address: '0x', polarity: 'b_is_buy', expires_in: 1 };
`;

/**
 * The client stands alone: `npm pack` of wire and client, installed in an empty folder from the
 * two tarballs and the npm cache, type-checks (strict) a consumer that imports both, and loads.
 */
describe('client package', () => {
  // Two tsc builds, two packs, an offline install and a strict type check on a shared machine.
  const PACK_TIMEOUT_MS = 600000;
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(path.join(os.tmpdir(), 'rfq-client-pack-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it(
    'packs with wire, installs into an empty folder and type-checks a strict consumer',
    async () => {
      await run('npm', ['run', 'build'], { cwd: CLIENT, env: quiet });
      const tarballs = path.join(work, 'tarballs');
      mkdirSync(tarballs);
      for (const dir of [WIRE, CLIENT]) await run('npm', ['pack', '--pack-destination', tarballs], { cwd: dir, env: quiet });
      const packed = readdirSync(tarballs).sort();
      expect(packed).toEqual(['options-rfq-client-0.1.0.tgz', 'options-rfq-wire-0.1.0.tgz']);

      // The declarations name the package, never a server path.
      const declarations = readFileSync(path.join(CLIENT, 'dist/api.types.d.ts'), 'utf8');
      expect(declarations).toContain("from '@options-rfq/wire'");
      expect(declarations).not.toMatch(/\.\.\/(api|shared)\//);

      const app = path.join(work, 'app');
      mkdirSync(app);
      writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
      // From the npm cache alone when it holds every package; otherwise the cache first, then the registry.
      const install = (mode: string) =>
        run('npm', ['install', mode, '--no-audit', '--no-fund', ...packed.map((t) => path.join(tarballs, t))], { cwd: app, env: quiet });
      await install('--offline').catch(() => install('--prefer-offline'));
      writeFileSync(path.join(app, 'consumer.ts'), CONSUMER);
      writeFileSync(
        path.join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'ES2022',
            module: 'commonjs',
            moduleResolution: 'node',
            lib: ['ES2022', 'DOM'],
            types: [],
            skipLibCheck: true,
          },
          files: ['consumer.ts'],
        }),
      );
      await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app, env: quiet });

      const loaded = await run(
        process.execPath,
        ['-e', "const c = require('@options-rfq/client'); console.log(typeof c.RfqClient, typeof c.signPackageOffer, typeof c.RfqSocket)"],
        {
          cwd: app,
        },
      );
      expect(loaded.stdout.trim()).toBe('function function function');
    },
    PACK_TIMEOUT_MS,
  );
});
