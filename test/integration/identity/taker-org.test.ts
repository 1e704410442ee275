import type { Express } from 'express';
import type { PrivateKeyAccount } from 'viem/accounts';
import { routeAuth } from '../../../api/auth';
import type { ApiContext } from '../../../api/context';
import { revocationChannel } from '../../../shared/identity';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, jwtClaims, newWallet, signIn, signStatement } from '../../support/wallets';
import { probeApp } from './probe-app';

describe('taker organizations, keys and delegates', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let probe: Express;
  let orgId: string;
  let admin: PrivateKeyAccount;
  let adminToken: string;
  let memberToken: string;

  async function issueKey(name: string): Promise<{ id: string; secret: string; created_at: string }> {
    return (await request(app).post('/api/taker/keys').set(bearer(adminToken)).send({ name }).expect(201)).body;
  }

  function delegateWithKey(secret: string, address: `0x${string}`, expiresIn = 300): request.Test {
    return request(app).post('/api/taker/delegate').set(bearer(secret)).send({ address, expires_in: expiresIn });
  }

  async function delegateAsAdmin(address: `0x${string}`, expiresIn = 300): Promise<request.Response> {
    const signed = await signStatement(admin, { kind: 'taker', action: 'mint_delegate', member: address, organization: orgId, name: 'Acme Integrations' });
    return request(app)
      .post('/api/taker/delegate')
      .set(bearer(adminToken))
      .send({ address, expires_in: expiresIn, ...signed })
      .expect(200);
  }

  beforeAll(async () => {
    env = await createTestEnv({ DELEGATE_MAX_TTL_SECONDS: '600' });
    ({ app, ctx } = buildApp(env));
    probe = probeApp(ctx, { '/wallet': routeAuth(ctx, 'register_freemium_pubsub'), '/quote': routeAuth(ctx, 'create_quote') });
    admin = newWallet();
    const member = newWallet();
    adminToken = await signIn(app, admin);
    memberToken = await signIn(app, member);
    orgId = (await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Acme Integrations', owner: admin.address })).id;
    await ctx.services.identity.orgs.addMember({ organization_id: orgId, address: member.address, role: 'member' });
  });
  afterAll(() => env.close());

  it('the taker admin issues, lists and removes keys with its session; the secret is shown once', async () => {
    const key = await issueKey('backend prod');
    expect(key).toEqual({
      id: expect.any(String),
      name: 'backend prod',
      created_at: expect.any(String),
      last_used_at: null,
      secret: expect.stringMatching(/^tk_/),
    });
    const list = await request(app).get('/api/taker/keys').set(bearer(adminToken)).expect(200);
    expect(list.body.keys).toContainEqual({ id: key.id, name: 'backend prod', created_at: key.created_at, last_used_at: null });
    expect(JSON.stringify(list.body)).not.toContain(key.secret);

    const removed = await request(app).delete(`/api/taker/keys/${key.id}`).set(bearer(adminToken)).expect(200);
    expect(removed.body).toMatchObject({ id: key.id, removed_at: expect.any(String) });
    const after = await request(app).get('/api/taker/keys').set(bearer(adminToken)).expect(200);
    expect(after.body.keys.map((k: { id: string }) => k.id)).not.toContain(key.id);
    await request(app).delete(`/api/taker/keys/${key.id}`).set(bearer(adminToken)).expect(404);
  });

  it('members, outsiders, key bearers and anonymous callers cannot manage taker keys', async () => {
    expect((await request(app).get('/api/taker/keys').set(bearer(memberToken)).expect(403)).body.code).toBe('role_forbidden');
    const outsider = await signIn(app, newWallet());
    expect((await request(app).post('/api/taker/keys').set(bearer(outsider)).send({ name: 'x' }).expect(403)).body.code).toBe('not_taker_member');
    const key = await issueKey('not a manager');
    expect((await request(app).get('/api/taker/keys').set(bearer(key.secret)).expect(401)).body.code).toBe('siwe_required');
    await request(app).get('/api/taker/keys').expect(401);
    await request(app).post('/api/taker/keys').set(bearer(adminToken)).send({ name: 'two\nlines' }).expect(400);
  });

  it('a taker key mints a delegate whose JWT carries key_id', async () => {
    const key = await issueKey('minter');
    const user = newWallet().address;
    const res = await delegateWithKey(key.secret, user).expect(200);
    expect(res.body).toEqual({ token: expect.any(String), address: user, expires_in: 300, key_id: key.id });
    const claims = jwtClaims(res.body.token);
    expect(claims).toMatchObject({ typ: 'delegate', sub: user, org: orgId, key_id: key.id, iss: env.config.JWT_ISSUER, aud: env.config.JWT_AUDIENCE });
    expect((claims.exp as number) - (claims.iat as number)).toBe(300);

    const seen = await request(probe).get('/wallet').set(bearer(res.body.token)).expect(200);
    expect(seen.body.principal).toEqual({ kind: 'delegate', address: user, keyId: key.id, organizationId: orgId, expiresAt: (claims.exp as number) * 1000 });
    const list = await request(app).get('/api/taker/keys').set(bearer(adminToken)).expect(200);
    expect(list.body.keys.find((k: { id: string }) => k.id === key.id).last_used_at).not.toBeNull();
  });

  it('the taker admin mints a delegate with a signed statement; its JWT has no key_id', async () => {
    const user = newWallet().address;
    const res = await delegateAsAdmin(user, 120);
    expect(res.body).toEqual({ token: expect.any(String), address: user, expires_in: 120 });
    const claims = jwtClaims(res.body.token);
    expect(claims).toMatchObject({ typ: 'delegate', sub: user, org: orgId });
    expect(claims).not.toHaveProperty('key_id');
    const seen = await request(probe).get('/wallet').set(bearer(res.body.token)).expect(200);
    expect(seen.body.principal).toMatchObject({ kind: 'delegate', keyId: null, organizationId: orgId });

    const unsigned = await request(app).post('/api/taker/delegate').set(bearer(adminToken)).send({ address: user, expires_in: 60 }).expect(400);
    expect(unsigned.body.details.map((d: { path: string }) => d.path).sort()).toEqual(['message', 'signature']);
    const other = await signStatement(admin, {
      kind: 'taker',
      action: 'mint_delegate',
      member: newWallet().address,
      organization: orgId,
      name: 'Acme Integrations',
    });
    expect(
      (
        await request(app)
          .post('/api/taker/delegate')
          .set(bearer(adminToken))
          .send({ address: user, expires_in: 60, ...other })
          .expect(403)
      ).body.error,
    ).toMatch(/Member does not match/);
    const memberSigned = await request(app)
      .post('/api/taker/delegate')
      .set(bearer(memberToken))
      .send({ address: user, expires_in: 60, ...other })
      .expect(403);
    expect(memberSigned.body.code).toBe('role_forbidden');
  });

  it('expires_in is bounded by DELEGATE_MAX_TTL_SECONDS', async () => {
    const key = await issueKey('bounds');
    const res = await delegateWithKey(key.secret, newWallet().address, 601).expect(400);
    expect(res.body.details).toEqual([{ path: 'expires_in', message: 'must be at most 600 seconds' }]);
    await delegateWithKey(key.secret, newWallet().address, 0).expect(400);
    await delegateWithKey(key.secret, newWallet().address, 600).expect(200);
  });

  it('only a taker key or the taker admin session may mint', async () => {
    const body = { address: newWallet().address, expires_in: 60 };
    expect((await request(app).post('/api/taker/delegate').send(body).expect(401)).body.code).toBe('taker_auth_required');
    const delegate = (await delegateAsAdmin(newWallet().address)).body.token as string;
    await request(app).post('/api/taker/delegate').set(bearer(delegate)).send(body).expect(401);
    const outsider = await signIn(app, newWallet());
    expect((await request(app).post('/api/taker/delegate').set(bearer(outsider)).send(body).expect(403)).body.code).toBe('not_taker_member');
  });

  it('an expired delegate is refused', async () => {
    const key = await issueKey('short');
    const res = await delegateWithKey(key.secret, newWallet().address, 1).expect(200);
    // JWT expiry is whole seconds, so a 1 s delegate lives 0-1 s: wait for its own `exp` to pass
    // rather than for a fixed time, and check it was minted to expire that soon.
    const exp = jwtClaims(res.body.token as string).exp as number;
    expect(exp * 1000).toBeLessThanOrEqual(Date.now() + 1000);
    await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now()) + 50));
    expect((await request(probe).get('/wallet').set(bearer(res.body.token)).expect(401)).body.code).toBe('wallet_required');
  });

  it('revoking a taker key ends the key and every delegate it minted, and is announced', async () => {
    const key = await issueKey('to revoke');
    const d1 = (await delegateWithKey(key.secret, newWallet().address).expect(200)).body.token as string;
    const d2 = (await delegateWithKey(key.secret, newWallet().address).expect(200)).body.token as string;
    const adminMinted = (await delegateAsAdmin(newWallet().address)).body.token as string;
    for (const t of [d1, d2]) await request(probe).get('/wallet').set(bearer(t)).expect(200);

    const sub = env.redis.duplicate();
    const announced = new Promise<string>((resolve) => sub.on('message', (_c, msg: string) => resolve(msg)));
    await sub.subscribe(revocationChannel(env.config.REDIS_PREFIX));
    try {
      await request(app).delete(`/api/taker/keys/${key.id}`).set(bearer(adminToken)).expect(200);
      expect(JSON.parse(await announced)).toEqual({ kind: 'taker_key', keyId: key.id });
    } finally {
      sub.disconnect();
    }
    for (const t of [d1, d2]) await request(probe).get('/wallet').set(bearer(t)).expect(401);
    await delegateWithKey(key.secret, newWallet().address).expect(401);
    // Delegates minted by the admin do not depend on any key.
    await request(probe).get('/wallet').set(bearer(adminMinted)).expect(200);
  });

  it('a raw taker key is not a wallet; any delegate skips the quote challenge', async () => {
    const key = await issueKey('raw');
    expect((await request(probe).get('/wallet').set(bearer(key.secret)).expect(401)).body.code).toBe('wallet_required');
    const delegate = (await delegateAsAdmin(newWallet().address)).body.token as string;
    await request(probe).get('/quote').set(bearer(delegate)).expect(200);
  });
});
