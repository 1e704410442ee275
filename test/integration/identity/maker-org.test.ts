import type { Express } from 'express';
import type { PrivateKeyAccount } from 'viem/accounts';
import { routeAuth } from '../../../api/auth';
import type { ApiContext } from '../../../api/context';
import { revocationChannel } from '../../../shared/identity';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signedKeyAdd, signIn, signStatement } from '../../support/wallets';
import { probeApp } from './probe-app';

interface Member {
  wallet: PrivateKeyAccount;
  token: string;
}

describe('maker organizations and keys', () => {
  let env: TestEnv;
  let app: Express;
  let ctx: ApiContext;
  let probe: Express;
  let orgId: string;
  const people: Record<'owner' | 'admin' | 'manager' | 'member' | 'outsider', Member> = {} as never;

  async function person(): Promise<Member> {
    const wallet = newWallet();
    return { wallet, token: await signIn(app, wallet) };
  }

  /** POST /api/maker/keys signed by `who` and by the bot wallet, sent by `who`; answers the bot's address too. */
  async function addKey(who: Member, name: string, status = 201): Promise<request.Response & { bot: `0x${string}` }> {
    const bot = newWallet();
    const res = await request(app)
      .post('/api/maker/keys')
      .set(bearer(who.token))
      .send(await signedKeyAdd(who.wallet, bot, { organization: orgId, name }))
      .expect(status);
    return Object.assign(res, { bot: bot.address });
  }

  beforeAll(async () => {
    env = await createTestEnv();
    ({ app, ctx } = buildApp(env));
    probe = probeApp(ctx, { '/maker-only': routeAuth(ctx, 'post_maker_offer') });
    for (const k of ['owner', 'admin', 'manager', 'member', 'outsider'] as const) people[k] = await person();
    const org = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Deep Liquidity', owner: people.owner.wallet.address });
    orgId = org.id;
    for (const role of ['admin', 'manager', 'member'] as const) {
      await ctx.services.identity.orgs.addMember({ organization_id: orgId, address: people[role].wallet.address, role });
    }
  });
  afterAll(() => env.close());

  it('GET /api/me gives tier maker with role and organization for each role, freemium otherwise', async () => {
    for (const role of ['owner', 'admin', 'manager', 'member'] as const) {
      const me = await request(app).get('/api/me').set(bearer(people[role].token)).expect(200);
      expect(me.body).toEqual({
        credential: 'siwe',
        address: people[role].wallet.address,
        tier: 'maker',
        role,
        organization_id: orgId,
        organization_name: 'Deep Liquidity',
        dutch_fades: { count: 0, window_seconds: 86400, limit: 3, blocked_until: null },
      });
    }
    const me = await request(app).get('/api/me').set(bearer(people.outsider.token)).expect(200);
    expect(me.body).toEqual({ credential: 'siwe', address: people.outsider.wallet.address, tier: 'freemium' });
  });

  it('an admin adds a key with a signed statement; the secret is shown once, stored hashed', async () => {
    const res = await addKey(people.admin, 'bot alpha');
    const { bot } = res;
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'bot alpha',
      address: bot,
      verified: true,
      created_at: expect.any(String),
      last_used_at: null,
      secret: expect.stringMatching(/^mk_/),
    });
    const rows: { secret_hash: string }[] = await env.db.query(`SELECT secret_hash FROM api_keys WHERE id = $1`, [res.body.id]);
    expect(rows[0].secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].secret_hash).not.toContain(res.body.secret);

    const list = await request(app).get('/api/maker/keys').set(bearer(people.owner.token)).expect(200);
    expect(list.body.keys).toContainEqual({
      id: res.body.id,
      name: 'bot alpha',
      address: bot,
      created_at: res.body.created_at,
      last_used_at: null,
      verified: true,
    });
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
  });

  it('owners and managers manage keys too; members and outsiders are refused', async () => {
    await addKey(people.owner, 'owner bot');
    await addKey(people.manager, 'manager bot');

    const memberList = await request(app).get('/api/maker/keys').set(bearer(people.member.token)).expect(403);
    expect(memberList.body.code).toBe('role_forbidden');
    const memberAdd = await addKey(people.member, 'member bot', 403);
    expect(memberAdd.body.error).toMatch(/role member may not manage/);
    const outsider = await request(app).get('/api/maker/keys').set(bearer(people.outsider.token)).expect(403);
    expect(outsider.body.code).toBe('not_maker_member');
    await request(app).get('/api/maker/keys').expect(401);
  });

  it('a maker key authenticates as its bot wallet with maker rights and records last_used_at', async () => {
    const added = await addKey(people.admin, 'bot beta');
    const { bot, body: key } = added;
    const res = await request(probe).get('/maker-only').set(bearer(key.secret)).expect(200);
    expect(res.body.principal).toEqual({ kind: 'maker_key', address: bot, keyId: key.id, organizationId: orgId, verified: true });
    const list = await request(app).get('/api/maker/keys').set(bearer(people.admin.token)).expect(200);
    const listed = list.body.keys.find((k: { id: string }) => k.id === key.id);
    expect(Date.parse(listed.last_used_at)).toBeGreaterThanOrEqual(Date.parse(key.created_at));

    // A key is not a wallet session: it cannot manage keys (GET /api/me answers it: see session.test.ts).
    expect((await request(app).get('/api/maker/keys').set(bearer(key.secret)).expect(401)).body.code).toBe('siwe_required');
    // A tampered secret with the same key id is refused.
    const tampered = key.secret.slice(0, -2) + (key.secret.endsWith('AA') ? 'BB' : 'AA');
    await request(probe).get('/maker-only').set(bearer(tampered)).expect(401);
  });

  it('maker rights: a member session has them, a plain wallet does not, no bearer is 401', async () => {
    const member = await request(probe).get('/maker-only').set(bearer(people.member.token)).expect(200);
    expect(member.body.principal).toMatchObject({ kind: 'siwe', address: people.member.wallet.address });
    expect((await request(probe).get('/maker-only').set(bearer(people.outsider.token)).expect(403)).body.code).toBe('maker_rights_required');
    expect((await request(probe).get('/maker-only').expect(401)).body.code).toBe('maker_rights_required');
  });

  it('every statement field that does not match the request is a 403 naming it', async () => {
    const botWallet = newWallet();
    const bot = botWallet.address;
    // The bot co-signs whatever it is shown, so each refusal below is the admin statement's.
    const cosigned = async (s: { message: string }) => ({ ...s, address_signature: await botWallet.signMessage({ message: s.message }) });
    const cases: [string, Partial<Parameters<typeof signStatement>[1]>, RegExp][] = [
      ['Action', { action: 'remove_member' }, /Action does not match: expected add_member/],
      ['Member', { member: newWallet().address }, /Member does not match/],
      ['Name', { name: 'other name' }, /Name does not match/],
      ['Organization', { organization: '00000000-0000-4000-8000-000000000000' }, /Organization does not match/],
      ['Admin', { admin: people.manager.wallet.address }, /signer .* does not match Admin/],
      ['Issued At', { issuedAt: new Date(Date.now() - 11 * 60_000).toISOString() }, /Issued At is not within 10 minutes/],
      ['Issued At', { issuedAt: new Date(Date.now() + 11 * 60_000).toISOString() }, /Issued At is not within 10 minutes/],
    ];
    for (const [field, override, text] of cases) {
      const signed = await signStatement(people.admin.wallet, { action: 'add_member', member: bot, organization: orgId, name: 'bot gamma', ...override });
      const res = await request(app)
        .post('/api/maker/keys')
        .set(bearer(people.admin.token))
        .send({ address: bot, name: 'bot gamma', ...(await cosigned(signed)) });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('statement_mismatch');
      expect(res.body.error).toMatch(text);
      expect(res.body.details[0].path).toBe(field);
    }
    // Signed by a real manager, but sent with the admin's session: Admin is not the bearer.
    const byManager = await signStatement(people.manager.wallet, { action: 'add_member', member: bot, organization: orgId, name: 'bot gamma' });
    const res = await request(app)
      .post('/api/maker/keys')
      .set(bearer(people.admin.token))
      .send({ address: bot, name: 'bot gamma', ...(await cosigned(byManager)) })
      .expect(403);
    expect(res.body.error).toMatch(/does not match the signed-in wallet/);
    // A maker title is required on maker routes.
    const takerTitle = await signStatement(people.admin.wallet, { kind: 'taker', action: 'add_member', member: bot, organization: orgId, name: 'bot gamma' });
    expect(
      (
        await request(app)
          .post('/api/maker/keys')
          .set(bearer(people.admin.token))
          .send({ address: bot, name: 'bot gamma', ...(await cosigned(takerTitle)) })
          .expect(403)
      ).body.error,
    ).toMatch(/title/);
    const malformed = await request(app)
      .post('/api/maker/keys')
      .set(bearer(people.admin.token))
      .send({ address: bot, name: 'bot gamma', ...(await cosigned({ message: 'please add' })), signature: byManager.signature })
      .expect(400);
    expect(malformed.body.details[0].path).toBe('message');
  });

  it('a statement is accepted once; a replay is refused', async () => {
    const signed = await signedKeyAdd(people.admin.wallet, newWallet(), { organization: orgId, name: 'bot delta' });
    await request(app).post('/api/maker/keys').set(bearer(people.admin.token)).send(signed).expect(201);
    const again = await request(app).post('/api/maker/keys').set(bearer(people.admin.token)).send(signed).expect(403);
    expect(again.body).toMatchObject({ code: 'statement_replayed', error: 'statement already used; sign a new one' });
    // Whatever Redis loses (here: every key of this deployment, as a FLUSHALL would), the use is remembered.
    for (const key of await env.redis.keys(`${env.config.REDIS_PREFIX}*`)) await env.redis.del(key);
    const afterLoss = await request(app).post('/api/maker/keys').set(bearer(people.admin.token)).send(signed).expect(403);
    expect(afterLoss.body).toMatchObject({ code: 'statement_replayed' });
  });

  it('removing a key needs remove_member over its bot address and name, stops it at once and announces it', async () => {
    const added = await addKey(people.admin, 'bot epsilon');
    const { bot, body: key } = added;
    await request(probe).get('/maker-only').set(bearer(key.secret)).expect(200);

    const wrong = await signStatement(people.admin.wallet, { action: 'remove_member', member: bot, organization: orgId, name: 'bot other' });
    expect((await request(app).delete(`/api/maker/keys/${key.id}`).set(bearer(people.admin.token)).send(wrong).expect(403)).body.error).toMatch(
      /Name does not match/,
    );

    const sub = env.redis.duplicate();
    const announced = new Promise<string>((resolve) => sub.on('message', (_channel, msg: string) => resolve(msg)));
    await sub.subscribe(revocationChannel(env.config.REDIS_PREFIX));
    try {
      const signed = await signStatement(people.admin.wallet, { action: 'remove_member', member: bot, organization: orgId, name: 'bot epsilon' });
      const res = await request(app).delete(`/api/maker/keys/${key.id}`).set(bearer(people.admin.token)).send(signed).expect(200);
      expect(res.body).toEqual({
        id: key.id,
        name: 'bot epsilon',
        address: bot,
        verified: true,
        created_at: key.created_at,
        last_used_at: expect.any(String),
        removed_at: expect.any(String),
      });
      expect(JSON.parse(await announced)).toEqual({ kind: 'maker_key', keyId: key.id });
    } finally {
      sub.disconnect();
    }
    expect((await request(probe).get('/maker-only').set(bearer(key.secret)).expect(401)).body.code).toBe('maker_rights_required');
    const list = await request(app).get('/api/maker/keys').set(bearer(people.admin.token)).expect(200);
    expect(list.body.keys.map((k: { id: string }) => k.id)).not.toContain(key.id);
    const gone = await signStatement(people.admin.wallet, { action: 'remove_member', member: bot, organization: orgId, name: 'bot epsilon' });
    expect((await request(app).delete(`/api/maker/keys/${key.id}`).set(bearer(people.admin.token)).send(gone).expect(404)).body.code).toBe('key_not_found');
    await request(app).delete('/api/maker/keys/not-a-key').set(bearer(people.admin.token)).send(gone).expect(404);
  });

  it('transfer_admin moves the admin role; the old admin is then refused', async () => {
    const next = await person();
    const signed = await signStatement(people.admin.wallet, {
      action: 'transfer_admin',
      member: next.wallet.address,
      organization: orgId,
      name: 'Deep Liquidity',
    });
    const res = await request(app)
      .put('/api/maker/organization')
      .set(bearer(people.admin.token))
      .send({ new_admin: next.wallet.address, ...signed, new_admin_signature: await next.wallet.signMessage({ message: signed.message }) })
      .expect(200);
    expect(res.body).toEqual({ id: orgId, name: 'Deep Liquidity', admin: next.wallet.address, previous_admin: people.admin.wallet.address });

    const old = await request(app).get('/api/maker/keys').set(bearer(people.admin.token)).expect(403);
    expect(old.body.code).toBe('role_forbidden');
    expect((await request(app).get('/api/me').set(bearer(people.admin.token)).expect(200)).body.role).toBe('member');
    expect((await request(app).get('/api/me').set(bearer(next.token)).expect(200)).body).toMatchObject({
      tier: 'maker',
      role: 'admin',
      organization_id: orgId,
    });
    await addKey(next, 'new admin bot');

    // An owner may transfer admin too, and stays owner.
    const thirdWallet = newWallet();
    const third = thirdWallet.address;
    const accept = (s: { message: string }) => thirdWallet.signMessage({ message: s.message });
    const byOwner = await signStatement(people.owner.wallet, { action: 'transfer_admin', member: third, organization: orgId, name: 'Deep Liquidity' });
    const moved = await request(app)
      .put('/api/maker/organization')
      .set(bearer(people.owner.token))
      .send({ new_admin: third, ...byOwner, new_admin_signature: await accept(byOwner) })
      .expect(200);
    expect(moved.body.previous_admin).toBe(next.wallet.address);
    expect((await request(app).get('/api/me').set(bearer(people.owner.token)).expect(200)).body.role).toBe('owner');

    // Naming the admin it already has is a conflict, not a silent success.
    const again = await signStatement(people.owner.wallet, { action: 'transfer_admin', member: third, organization: orgId, name: 'Deep Liquidity' });
    const same = await request(app)
      .put('/api/maker/organization')
      .set(bearer(people.owner.token))
      .send({ new_admin: third, ...again, new_admin_signature: await accept(again) })
      .expect(409);
    expect(same.body).toEqual({ error: `${third} is already the admin`, code: 'already_admin', request_id: expect.any(String) });

    const wrongName = await signStatement(people.owner.wallet, { action: 'transfer_admin', member: third, organization: orgId, name: 'Other' });
    expect(
      (
        await request(app)
          .put('/api/maker/organization')
          .set(bearer(people.owner.token))
          .send({ new_admin: third, ...wrongName, new_admin_signature: await accept(wrongName) })
          .expect(403)
      ).body.error,
    ).toMatch(/Name does not match/);
  });
});
