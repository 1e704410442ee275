import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { NetworksService } from '../../shared/networks';
import { FeedRecorder } from '../faults/feed-recorder';
import type { TestChain } from '../support/chain';
import { sharedTestChain } from '../support/worker-chain';
import { assertNoTakerIdentity, eventually } from '../support/events';
import { createQuote, premiumMakerFeed, ROLE_PROCESSES } from '../support/role-processes';
import { spawnService, type RunningService } from '../support/spawn-service';
import { buildTestBuild, TEST_BUILD_DIR, testBuildIsFresh } from '../support/test-build';
import { createTestEnv, type TestEnv } from '../support/test-env';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const RECORDER = path.join(ROOT, 'test/integration/foundation/fixtures/record-loaded-modules.cjs');
/** Makes this install behave like the image's `npm ci --omit=dev`: no devDependency resolves. */
const HIDE_DEV_DEPS = path.join(ROOT, 'test/integration/foundation/fixtures/hide-dev-dependencies.cjs');
const CHAIN_ID = 31337;

/**
 * Production runs the compiled service: `npm run build` emits JavaScript and each role is
 * `node dist/bin/main.js` (the Dockerfile's runtime image), with no TypeScript loader. The suite
 * builds once: the run's build, `.build/tsc` (`npm run build:test`), holds the production build's
 * JavaScript file for file at the same paths (same compiler options, same root: what
 * test/unit/foundation/build-config.test.ts keeps true, with the production files using nothing
 * the production build's type check lacks), so the roles run from it; when it is not fresh
 * (a run of named files after a change) this test builds it first, and a type error fails it.
 * The four roles run as one process each on this process's Node (the machine's Node 20 under
 * `npm test`, the supported LTS in `.ci/run`'s LTS pass), with every devDependency hidden as in
 * the image's `npm ci --omit=dev`, and a quote goes from the compiled API through the compiled
 * workers to a maker on the compiled socket tier while the compiled indexer follows the chain.
 */
describe(`compiled roles (the production build's JavaScript, node ${process.version})`, () => {
  const own = path.join(ROOT, '.build', `compiled-roles-${process.pid}`);
  const outDir = TEST_BUILD_DIR;
  let chain: TestChain;
  let env: TestEnv;
  const procs = new Map<string, RunningService>();
  const modulesFile = (role: string) => path.join(own, `${role}-modules.txt`);
  let feed: FeedRecorder | undefined;

  beforeAll(async () => {
    await mkdir(own, { recursive: true });
    // The build the spawned roles of a whole run use; a type error fails it and this test.
    if (!testBuildIsFresh()) expect({ build: 'npm run build:test', built: buildTestBuild() }).toEqual({ build: 'npm run build:test', built: true });
    expect(existsSync(path.join(outDir, 'bin', 'main.js'))).toBe(true);
    [chain, env] = await Promise.all([sharedTestChain(), createTestEnv()]);
    await new NetworksService(env.db).upsertNetwork(chain.network);
    const common = {
      NODE_ENV: 'production',
      DEVCHAIN: 'off',
      MIGRATE_ON_START: 'false',
      DATABASE_CREATE_IF_MISSING: 'false',
      DATABASE_URL: env.config.DATABASE_URL,
      REDIS_URL: env.config.REDIS_URL,
      REDIS_PREFIX: env.config.REDIS_PREFIX,
      INDEXER_POLL_INTERVAL_MS: '200',
      JWT_SECRET: randomBytes(32).toString('hex'),
      SERVICE_SIGNER_KEY: `0x${randomBytes(32).toString('hex')}`,
      NODE_OPTIONS: `--require ${HIDE_DEV_DEPS} --require ${RECORDER}`,
    };
    const runtime = { node: process.execPath, main: path.relative(ROOT, path.join(outDir, 'bin', 'main.js')) };
    await Promise.all(
      ROLE_PROCESSES.map(async (p) =>
        procs.set(
          p.roles,
          await spawnService({ ...common, ROLES: p.roles, LOADED_MODULES_FILE: modulesFile(p.roles) }, { timeoutMs: 90_000, runtime, ...p.ready }),
        ),
      ),
    );
  }, 900_000);

  afterAll(async () => {
    await feed?.close();
    await Promise.allSettled([...procs.values()].map((p) => p.stop('SIGKILL')));
    await env?.close();
    await chain?.stop();
    await rm(own, { recursive: true, force: true });
  }, 60_000);

  it('a quote created on the compiled API reaches a maker on the compiled socket tier through the compiled workers, without the taker', async () => {
    const api = procs.get('api')!;
    feed = await premiumMakerFeed(env, api.url, procs.get('socket')!.url, CHAIN_ID, 'Compiled maker');

    const { status, quote, taker, referrer } = await createQuote(api.url, chain.addresses.pair);
    expect(status).toBe(201);
    const got = await eventually(
      async () => feed!.named('rfq_request').filter((p) => p.quote_id === quote.id),
      (g) => g.length === 1,
      60_000,
      "the maker's rfq_request",
    );
    expect(got[0]).toMatchObject({ quote_id: quote.id, chain_id: CHAIN_ID });
    assertNoTakerIdentity(feed.named('rfq_request'), { taker, referrer, salt: quote.taker_salt });
  }, 120_000);

  it('the compiled indexer follows the chain: indexer status is healthy past a newly mined block', async () => {
    await chain.rpc('evm_mine');
    const head = Number(await chain.publicClient.getBlockNumber());
    type Status = { networks: { chain_id: number; healthy: boolean; state: string; cursors: { block_number: number }[] }[] };
    const status = await eventually(
      async () => {
        const r = await fetch(`${procs.get('api')!.url}/api/indexer/status?chain_id=${CHAIN_ID}`);
        return { code: r.status, body: (await r.json()) as Status };
      },
      (s) =>
        s.code === 200 &&
        s.body.networks[0]?.healthy === true &&
        s.body.networks[0]?.state === 'realtime' &&
        (s.body.networks[0]?.cursors ?? []).every((c) => c.block_number >= head),
      60_000,
      `indexer status healthy and realtime with every cursor past block ${head}`,
    );
    expect(status.body.networks[0]).toMatchObject({ chain_id: CHAIN_ID, healthy: true, state: 'realtime' });
    expect(status.body.networks[0].cursors.length).toBeGreaterThan(0);
  }, 120_000);

  it('the compiled operator CLI migrates an empty database to the schema the sources migrate to', async () => {
    const name = `rfq_compiled_${process.pid}_${randomBytes(3).toString('hex')}`;
    const url = new URL(env.config.DATABASE_URL);
    const admin = new Client({ connectionString: env.config.DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name}"`);
      url.pathname = `/${name}`;
      const migrate = await run(process.execPath, [path.join(outDir, 'bin', 'ops.js'), 'migrate'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATABASE_URL: url.toString(), NODE_OPTIONS: `--require ${HIDE_DEV_DEPS}` },
        timeout: 120_000,
      });
      expect(migrate.stderr).toBe('');
      const names = async (connectionString: string) => {
        const c = new Client({ connectionString });
        await c.connect();
        try {
          return (await c.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY timestamp')).rows.map((r) => r.name);
        } finally {
          await c.end();
        }
      };
      const fromSources = await names(env.config.DATABASE_URL);
      expect(fromSources.length).toBeGreaterThan(10);
      expect(await names(url.toString())).toEqual(fromSources);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  }, 180_000);

  it('the compiled service finds every Lua script (shared/platform/redis/lua) beside the compiled code, and Redis compiles each', async () => {
    const loader = path.join(outDir, 'shared', 'platform', 'redis', 'lua-scripts.js');
    const list = [
      `const lua = require(${JSON.stringify(loader)});`,
      'const out = {};',
      'for (const name of lua.luaScriptFiles().keys()) { const s = lua.luaScript(name); out[name] = { sha: s.sha, source: s.source }; }',
      'process.stdout.write(JSON.stringify(out));',
    ].join('\n');
    const { stdout } = await run(process.execPath, ['-e', list], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NODE_OPTIONS: `--require ${HIDE_DEV_DEPS}` },
      timeout: 60_000,
    });
    const scripts = JSON.parse(stdout) as Record<string, { sha: string; source: string }>;
    const files = (await readdir(path.join(ROOT, 'shared', 'platform', 'redis', 'lua'))).filter((f) => f.endsWith('.lua'));
    expect(files.length).toBeGreaterThan(0);
    expect(Object.keys(scripts).length).toBe(files.length);
    for (const [name, s] of Object.entries(scripts)) expect({ name, sha: await env.redis.script('LOAD', s.source) }).toEqual({ name, sha: s.sha });
  }, 120_000);

  it('every role stops cleanly on SIGTERM, having loaded only compiled JavaScript: no tsx, no TypeScript source, no dev tooling', async () => {
    for (const [role, p] of procs) {
      expect({ role, code: await p.stop('SIGTERM') }).toEqual({ role, code: 0 });
      expect({ role, errors: p.lines.filter((l) => l.level === 'fatal' || l.level === 'error') }).toEqual({ role, errors: [] });
      expect(existsSync(modulesFile(role))).toBe(true);
      const loaded = (await readFile(modulesFile(role), 'utf8'))
        .split('\n')
        .filter((f) => path.isAbsolute(f))
        .map((f) => path.relative(ROOT, f));
      const ours = loaded.filter((f) => !f.startsWith('node_modules/'));
      // The recorder saw this role's entry and code: an empty list cannot pass by accident.
      expect(ours).toContain(path.relative(ROOT, path.join(outDir, 'bin', 'main.js')));
      expect(ours.filter((f) => f.endsWith('.js')).length).toBeGreaterThan(20);
      expect({
        role,
        outside: ours.filter(
          (f) => !f.startsWith(`${path.relative(ROOT, outDir)}/`) && ![RECORDER, HIDE_DEV_DEPS].map((x) => path.relative(ROOT, x)).includes(f),
        ),
      }).toEqual({
        role,
        outside: [],
      });
      expect({ role, ts: ours.filter((f) => f.endsWith('.ts')) }).toEqual({ role, ts: [] });
      expect({ role, loaders: loaded.filter((f) => /^node_modules\/(tsx|ts-node|typescript|esbuild|hardhat|solc)\//.test(f)) }).toEqual({ role, loaders: [] });
    }
  }, 120_000);
});
