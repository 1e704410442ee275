import { NetworksService } from '../../shared/networks';
import { TokenIssuer } from '../../shared/identity/jwt-tokens';
import { newWallet } from '../support/wallets';
import { DEVELOPMENT_SERVICE_SIGNER } from '../../shared/chain/service-signer';
import { freePort } from '../support/chain';
import { networkFile } from '../support/fixtures';
import { opsWithEnv } from '../support/ops';
import { spawnService } from '../support/spawn-service';
import { createTestEnv, type TestEnv } from '../support/test-env';

/**
 * An address nobody answers on (TEST-NET-like, unroutable here): the rule reads RPC URLs and
 * never contacts them, so nothing in these tests sends traffic to it.
 */
const REMOTE_RPC = 'http://10.255.255.1:8545';

/**
 * Finding (issue #23, service signer): without SERVICE_SIGNER_KEY the workers and
 * `ops chain:deploy` fell back to the public development key whenever NODE_ENV was not
 * production, and the API only looked at its bind address. A staging deployment on a real
 * network (NODE_ENV unset, HOST loopback behind a proxy) would sign Dutch awards with a key
 * anyone can read in the source, so anyone could forge awards and exclusive fills for it. The
 * development key is now accepted only for this machine's own devchain (loopback RPC URLs,
 * DEVCHAIN on), and the roles that sign build their signer at start, refusing to start without one.
 */
describe('attack: the public development key signing for a real network', () => {
  let env: TestEnv;

  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env?.close());

  /** The service as `npm start` would run it on this database, without a signing key. */
  const serviceEnv = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: env.config.DATABASE_URL,
    REDIS_URL: env.config.REDIS_URL,
    REDIS_PREFIX: env.config.REDIS_PREFIX,
    DEVCHAIN: 'auto',
    ...extra,
  });

  it("a signing role refuses to start, exit 78, when a registered network is not this machine's devchain and no key is configured", async () => {
    await new NetworksService(env.db).upsertNetwork(networkFile(421614, { name: 'Remote testnet', rpc_urls: [REMOTE_RPC] }));
    for (const roles of ['api,workers', 'workers', 'api']) {
      // Only the roles that sign: the indexer would tail the network, and nothing may reach it.
      const started = spawnService(serviceEnv({ ROLES: roles }), { timeoutMs: 60_000 });
      const err = await started.then(
        async (svc) => {
          await svc.stop();
          return new Error(`${roles} started with the development key for ${REMOTE_RPC}`);
        },
        (e: Error) => e,
      );
      expect(err.message).toMatch(/service exited with 78 before listening/);
      expect(err.message).toContain(`SERVICE_SIGNER_KEY: required: network 421614 (${REMOTE_RPC}) is not this machine's devchain`);
    }
    await env.db.query(`DELETE FROM networks WHERE chain_id = 421614`);
  }, 180_000);

  it('the public development JWT secret follows the signer rule: behind a loopback bind, with a remote network registered, a forged session is refused (issue #38)', async () => {
    await new NetworksService(env.db).upsertNetwork(networkFile(421614, { name: 'Remote testnet', rpc_urls: [REMOTE_RPC] }));
    try {
      // HOST stays loopback (a same-host proxy in front): the old rule looked only at that.
      const svc = await spawnService(serviceEnv({ DEVCHAIN: 'off', ROLES: 'api', SERVICE_SIGNER_KEY: `0x${'5'.repeat(64)}` }), { timeoutMs: 60_000 });
      try {
        const forged = await new TokenIssuer(Object.freeze({ ...env.config, JWT_SECRET: undefined })).signSession(newWallet().address);
        const me = await fetch(`${svc.url}/api/me`, { headers: { authorization: `Bearer ${forged.token}` } });
        expect(me.status).toBe(401);
        expect(svc.lines.some((l) => String(l.msg).includes('random secret of this process'))).toBe(true);
      } finally {
        await svc.stop();
      }
    } finally {
      await env.db.query(`DELETE FROM networks WHERE chain_id = 421614`);
    }
  }, 120_000);

  it('ops chain:deploy refuses a non-loopback RPC without a key, before contacting it, and registers nothing', async () => {
    const run = await opsWithEnv(env, { DEVCHAIN: 'auto' }, 'chain:deploy', '--rpc-url', REMOTE_RPC);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`SERVICE_SIGNER_KEY: required: network 31337 (${REMOTE_RPC}) is not this machine's devchain`);
    expect(await new NetworksService(env.db).allNetworks()).toEqual([]);
  }, 60_000);

  it('with DEVCHAIN on and only its loopback devchain registered, the service starts and signs with the development key', async () => {
    const svc = await spawnService(serviceEnv({ DEVCHAIN_PORT: String(await freePort()), ROLES: 'api,workers' }), { timeoutMs: 120_000 });
    try {
      const ready = svc.lines.find((l) => l.msg === 'service signer ready');
      expect(ready).toMatchObject({ signer: DEVELOPMENT_SERVICE_SIGNER.address });
      const nets = await new NetworksService(env.db).allNetworks();
      expect(nets.map((n) => [n.chain_id, new URL(n.rpc_urls[0]!).hostname])).toEqual([[31337, '127.0.0.1']]);
    } finally {
      await svc.stop();
    }
  }, 150_000);
});
