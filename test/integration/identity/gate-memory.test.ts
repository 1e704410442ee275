import type { Express } from 'express';
import type { ApiContext } from '../../../api/context';
import { announceNetworkChange } from '../../../bin/ops/network-notice';
import { revocationChannel } from '../../../shared/identity';
import { NetworksService } from '../../../shared/networks';
import { createRedis, publishTo, type Redis } from '../../../shared/platform/redis';
import { networkFile } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

/**
 * The gate's checks from memory (api/gate-memory.ts, docs/SECURITY.md "The gate's memory"):
 * a revoked key or a disabled network is refused at the next request once its notice reached
 * the process, everything is forgotten while the notice channel is down, and a change nobody
 * announced is refused once GATE_MEMORY_MS has passed.
 */
const MEMORY_MS = 60_000;
const AT_RISK = '/api/explore/loans/at-risk?chain_id=31337';
const UNAUTHORIZED = { error: 'siwe or taker delegate required', code: 'explore_auth_required', request_id: expect.any(String) };

/** Polls `cond` every 20 ms for up to 20 s (a busy machine): a wait on a condition, not a timing assertion. */
async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('gate memory: key and network checks from memory, ended by notices', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let redis: Redis;
  let adminToken: string;

  /** A new taker key of the test's organization and a delegate minted with it. */
  async function keyedDelegate(): Promise<{ keyId: string; delegate: string }> {
    const key = (
      await request(app)
        .post('/api/taker/keys')
        .set(bearer(adminToken))
        .send({ name: `backend-${Date.now()}` })
        .expect(201)
    ).body;
    const delegate = (
      await request(app).post('/api/taker/delegate').set(bearer(key.secret)).send({ address: newWallet().address, expires_in: 600 }).expect(200)
    ).body.token as string;
    return { keyId: key.id as string, delegate };
  }

  /** Revokes a key in the database only: no route, no notice (a change behind the service's back). */
  const revokeSilently = (keyId: string) => env.db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [keyId]);

  /** Answers a notice with what the socket tier and every API process hear, as another process would send it. */
  async function announceRevocation(keyId: string): Promise<void> {
    const heard = ctx.gateMemory.noticesHeard;
    await publishTo(redis, revocationChannel(env.config.REDIS_PREFIX), JSON.stringify({ kind: 'taker_key', keyId }));
    await until(() => ctx.gateMemory.noticesHeard > heard, 'the revocation notice');
  }

  beforeAll(async () => {
    env = await createTestEnv({ GATE_MEMORY_MS: String(MEMORY_MS) });
    ({ app, ctx } = buildApp(env));
    await ctx.gateMemory.start();
    redis = createRedis(env.config);
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    const admin = newWallet();
    adminToken = await signIn(app, admin);
    await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Integrator', owner: admin.address });
  }, 60_000);

  afterAll(async () => {
    await ctx?.gateMemory.close();
    redis?.disconnect();
    await env?.close();
  });

  it('serves from memory once subscribed: a key revoked behind its back still passes until a notice says otherwise', async () => {
    expect(ctx.gateMemory.serving).toBe(true);
    const { keyId, delegate } = await keyedDelegate();
    await request(app).get(AT_RISK).set(bearer(delegate)).expect(200);
    await revokeSilently(keyId);
    // Remembered: no notice yet, and GATE_MEMORY_MS (a minute here) has not passed.
    await request(app).get(AT_RISK).set(bearer(delegate)).expect(200);
    await announceRevocation(keyId);
    const res = await request(app).get(AT_RISK).set(bearer(delegate));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('a key removed through this process is refused at the very next request', async () => {
    const { keyId, delegate } = await keyedDelegate();
    await request(app).get(AT_RISK).set(bearer(delegate)).expect(200);
    await request(app).delete(`/api/taker/keys/${keyId}`).set(bearer(adminToken)).expect(200);
    const res = await request(app).get(AT_RISK).set(bearer(delegate));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('a lost notice channel forgets everything: a key revoked while Redis was away is refused after the reconnect', async () => {
    const { keyId, delegate } = await keyedDelegate();
    await request(app).get(AT_RISK).set(bearer(delegate)).expect(200);
    const before = ctx.gateMemory.subscriptions;
    // The revocation happens while this process cannot hear it: its notice is never sent here.
    await revokeSilently(keyId);
    // The connection drops (a network cut, a Redis restart) and ioredis reconnects on its own.
    ctx.gateMemory.noticeConnection!.disconnect(true);
    await until(() => ctx.gateMemory.serving && ctx.gateMemory.subscriptions > before, 'the notice channel to come back');
    const res = await request(app).get(AT_RISK).set(bearer(delegate));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('a notice nobody can read forgets everything', async () => {
    const { keyId, delegate } = await keyedDelegate();
    await request(app).get(AT_RISK).set(bearer(delegate)).expect(200);
    await revokeSilently(keyId);
    const heard = ctx.gateMemory.noticesHeard;
    await publishTo(redis, revocationChannel(env.config.REDIS_PREFIX), 'not json');
    await until(() => ctx.gateMemory.noticesHeard > heard, 'the unreadable notice');
    expect((await request(app).get(AT_RISK).set(bearer(delegate))).status).toBe(401);
  });

  it('a network disabled, then removed, is refused at the next request after its notice', async () => {
    const { delegate } = await keyedDelegate();
    await request(app).get(AT_RISK).set(bearer(delegate)).expect(200);
    const refusedChain = async () => {
      const res = await request(app).get(AT_RISK).set(bearer(delegate));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: [{ path: 'chain_id', message: expect.stringContaining('unknown chain 31337') }] });
    };
    const announced = async () => {
      const heard = ctx.gateMemory.noticesHeard;
      await announceNetworkChange(env.config, 31337);
      await until(() => ctx.gateMemory.noticesHeard > heard, 'the network notice');
    };

    await new NetworksService(env.db).upsertNetwork(networkFile(31337, { enabled: false }));
    await announced();
    await refusedChain();

    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    await announced();
    await request(app).get(AT_RISK).set(bearer(delegate)).expect(200);

    await env.db.query(`DELETE FROM networks WHERE chain_id = 31337`);
    await announced();
    await refusedChain();
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    await announced();
  });
});

describe('gate memory: the bound on a change nobody announced', () => {
  const BOUND_MS = 300;
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;

  beforeAll(async () => {
    env = await createTestEnv({ GATE_MEMORY_MS: String(BOUND_MS) });
    ({ app, ctx } = buildApp(env));
    await ctx.gateMemory.start();
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  }, 60_000);

  afterAll(async () => {
    await ctx?.gateMemory.close();
    await env?.close();
  });

  it('a key revoked with no notice is refused once GATE_MEMORY_MS has passed since it was last read', async () => {
    const admin = newWallet();
    const adminToken = await signIn(app, admin);
    await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Integrator', owner: admin.address });
    const key = (await request(app).post('/api/taker/keys').set(bearer(adminToken)).send({ name: 'backend' }).expect(201)).body;
    const delegate = (
      await request(app).post('/api/taker/delegate').set(bearer(key.secret)).send({ address: newWallet().address, expires_in: 600 }).expect(200)
    ).body.token as string;
    await request(app).get(AT_RISK).set(bearer(delegate)).expect(200);
    await env.db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [key.id]);
    const revokedAt = Date.now();
    // Not a timing assertion: after the bound has passed, whatever the machine's speed, the key is gone.
    await new Promise((r) => setTimeout(r, BOUND_MS + 50));
    expect(Date.now() - revokedAt).toBeGreaterThan(BOUND_MS);
    const res = await request(app).get(AT_RISK).set(bearer(delegate));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });
});
