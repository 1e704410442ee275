import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NetworksService } from '../../../shared/networks';
import { eventually } from '../../support/events';
import { opsWithEnv } from '../../support/ops';
import { spawnService, type RunningService } from '../../support/spawn-service';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { serviceEnv } from './service-env';

const ROOT = path.resolve(__dirname, '../../..');
// What this file checks is the install the sources run from (tsx is a dependency, `npm start`):
// its roles and CLI run through tsx, not from the run's compiled build (test/support/test-build.ts).
process.env.RFQ_TEST_BUILD_DIR = 'none';
const RECORDER = path.join(__dirname, 'fixtures', 'record-loaded-modules.cjs');
const HIDE_DEV_DEPS = path.join(__dirname, 'fixtures', 'hide-dev-dependencies.cjs');

/** The development tooling a production process must never load (paths relative to the repository). */
const DEV_TOOLING = ['node_modules/hardhat/', 'node_modules/solc/', 'dev/'];

interface PackageJson {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
interface PackageLock {
  packages: Record<string, { dev?: boolean; dependencies?: Record<string, string> }>;
}

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(path.join(ROOT, file), 'utf8')) as T;
}

/** Every file the process loaded, relative to the repository (builtins as their bare names). */
async function loadedModules(file: string): Promise<string[]> {
  const raw = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  return raw.map((f) => (path.isAbsolute(f) ? path.relative(ROOT, f) : f));
}

/**
 * `npm ci --omit=dev` installs no devDependencies, hardhat and solc among them; a production
 * process must therefore run without them, and never load the dev/ folder that drives them.
 * HIDE_DEV_DEPS makes this install look like that one; RECORDER lists what a process loaded.
 */
describe('production install (npm ci --omit=dev)', () => {
  let env: TestEnv;
  let dir: string;
  let svc: RunningService | undefined;

  beforeAll(async () => {
    env = await createTestEnv();
    dir = await mkdtemp(path.join(tmpdir(), 'rfq-prod-install-'));
  });
  afterEach(async () => {
    await svc?.stop('SIGKILL');
    svc = undefined;
  });
  afterAll(() => env.close());

  it('package.json lists hardhat and solc under devDependencies only, and the lock file leaves them out of a production install', async () => {
    const pkg = await readJson<PackageJson>('package.json');
    const lock = await readJson<PackageLock>('package-lock.json');
    for (const name of ['hardhat', 'solc']) {
      expect(pkg.devDependencies[name]).toEqual(expect.any(String));
      expect(pkg.dependencies[name]).toBeUndefined();
      expect(lock.packages[''].dependencies?.[name]).toBeUndefined();
      expect(lock.packages[`node_modules/${name}`]?.dev).toBe(true);
    }
  });

  it('NODE_ENV=production with DEVCHAIN=off starts without any devDependency installed, serves /healthz, and never loads hardhat, solc or dev/', async () => {
    const out = path.join(dir, 'main-modules.txt');
    svc = await spawnService(
      serviceEnv(env, {
        NODE_ENV: 'production',
        DEVCHAIN: 'off',
        ROLES: 'api,socket,workers,indexer',
        JWT_SECRET: randomBytes(32).toString('hex'),
        // The api and workers sign Dutch awards and exclusive fills: production refuses to start without the key.
        SERVICE_SIGNER_KEY: `0x${randomBytes(32).toString('hex')}`,
        NODE_OPTIONS: `--require ${HIDE_DEV_DEPS} --require ${RECORDER}`,
        LOADED_MODULES_FILE: out,
      }),
    );
    const running = svc;
    // 'api listening' comes before the socket tier attaches: stop only once every role has started.
    const started = await eventually(async () => running.lines.some((l) => l.msg === 'started'), Boolean, 60_000);
    expect(started).toBe(true);
    // Signers are recovered by libsecp256k1: its prebuilt binding is part of the production install.
    expect(running.lines.find((l) => l.msg === 'started')).toMatchObject({ ecdsa: 'libsecp256k1' });
    // And keccak-256 (taker address hashes) by the `keccak` package's prebuilt binding.
    expect(running.lines.find((l) => l.msg === 'started')).toMatchObject({ keccak: 'native' });
    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe('ok');
    const code = await svc.stop('SIGTERM');
    // A module missing from this install would surface as a crash or an error line: show them first.
    expect(svc.lines.filter((l) => l.level === 'fatal' || l.level === 'error')).toEqual([]);
    expect(code).toBe(0);

    const loaded = await loadedModules(out);
    // The recorder saw the service itself, so an empty or partial list cannot pass by accident.
    expect(loaded).toEqual(expect.arrayContaining(['bin/main.ts', 'api/app.ts', 'socket/index.ts', 'workers/index.ts', 'indexer/index.ts']));
    expect(loaded.filter((f) => DEV_TOOLING.some((d) => f.startsWith(d)))).toEqual([]);
  }, 90_000);

  it('DEVCHAIN=auto with no usable network and no hardhat or solc installed exits 78 naming DEVCHAIN and what to do, registering nothing', async () => {
    // A service that starts anyway is kept in `svc`, so afterEach stops it and its chain.
    const failure = await spawnService(serviceEnv(env, { DEVCHAIN: 'auto', NODE_OPTIONS: `--require ${HIDE_DEV_DEPS}` }), { timeoutMs: 60_000 }).then(
      (started) => {
        svc = started;
        return null;
      },
      (err: Error) => err,
    );
    expect(failure?.message).toMatch(
      /exited with 78[\s\S]*DEVCHAIN: auto would start the local Hardhat chain[\s\S]*hardhat and solc are not installed[\s\S]*npm ci/,
    );
    expect(await new NetworksService(env.db).allNetworks()).toEqual([]);
  }, 90_000);

  it('the operator CLI migrates without loading dev tooling; chain:deploy without solc says what is missing and registers nothing', async () => {
    const out = path.join(dir, 'ops-modules.txt');
    const migrate = await opsWithEnv(env, { NODE_OPTIONS: `--require ${RECORDER}`, LOADED_MODULES_FILE: out }, 'migrate');
    expect(migrate.code).toBe(0);
    const loaded = await loadedModules(out);
    expect(loaded).toEqual(expect.arrayContaining(['bin/ops.ts', 'bin/ops/chain.commands.ts']));
    expect(loaded.filter((f) => DEV_TOOLING.some((d) => f.startsWith(d)))).toEqual([]);

    const deploy = await opsWithEnv(env, { NODE_OPTIONS: `--require ${HIDE_DEV_DEPS}` }, 'chain:deploy', '--rpc-url', 'http://127.0.0.1:9');
    expect(deploy.code).not.toBe(0);
    expect(deploy.stderr).toMatch(/chain:deploy needs solc, but solc is not installed[\s\S]*npm ci/);
    expect(await new NetworksService(env.db).allNetworks()).toEqual([]);
  }, 90_000);
});
