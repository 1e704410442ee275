import { OrganizationService } from '../../../shared/identity';
import { buildApp, request } from '../../support/http';
import { ops } from '../../support/ops';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn } from '../../support/wallets';

describe('operator organization commands', () => {
  let env: TestEnv;

  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(() => env.close());

  it('org:create, org:add-member and org:list; the API then sees the roles', async () => {
    const owner = newWallet();
    const manager = newWallet();
    const created = await ops(env, 'org:create', '--kind', 'maker', '--name', 'Option Desk', '--owner', owner.address.toLowerCase());
    expect(created.code).toBe(0);
    const org = JSON.parse(created.stdout);
    expect(org).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      kind: 'maker',
      name: 'Option Desk',
      created_at: expect.any(String),
      members: [{ address: owner.address, role: 'owner', created_at: expect.any(String) }],
    });

    const added = await ops(env, 'org:add-member', '--org', org.id, '--address', manager.address, '--role', 'manager');
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout).members).toContainEqual({ address: manager.address, role: 'manager', created_at: expect.any(String) });

    const listed = await ops(env, 'org:list');
    expect(JSON.parse(listed.stdout).organizations.map((o: { id: string }) => o.id)).toEqual([org.id]);

    const app = buildApp(env).app;
    const me = await request(app)
      .get('/api/me')
      .set(bearer(await signIn(app, manager)))
      .expect(200);
    expect(me.body).toEqual({
      credential: 'siwe',
      address: manager.address,
      tier: 'maker',
      role: 'manager',
      organization_id: org.id,
      organization_name: 'Option Desk',
      dutch_fades: { count: 0, window_seconds: 86400, limit: 3, blocked_until: null },
    });

    const again = await ops(env, 'org:create', '--kind', 'maker', '--name', 'Second', '--owner', manager.address);
    expect(again.code).toBe(65);
    expect(again.stderr).toContain('already belongs to a maker organization');
    const admin = await ops(env, 'org:add-member', '--org', org.id, '--address', newWallet().address, '--role', 'admin');
    expect(admin.code).toBe(0);
    const secondAdmin = await ops(env, 'org:add-member', '--org', org.id, '--address', newWallet().address, '--role', 'admin');
    expect(secondAdmin.code).toBe(65);
    expect(secondAdmin.stderr).toContain('the organization already has an admin; transfer admin instead');
    // The refusal the command prints is the service's 409 admin_exists (the code the admin-transfer route documents).
    await expect(new OrganizationService(env.db).addMember({ organization_id: org.id, address: newWallet().address, role: 'admin' })).rejects.toMatchObject({
      status: 409,
      code: 'admin_exists',
      message: 'the organization already has an admin; transfer admin instead',
    });
    const badRole = await ops(env, 'org:add-member', '--org', org.id, '--address', newWallet().address, '--role', 'boss');
    expect(badRole.code).toBe(65);
    expect(badRole.stderr).toContain('role');
    const missing = await ops(env, 'org:create', '--kind', 'taker', '--name', 'X');
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('--owner is required');
    // Eight CLI runs, each a fresh Node process (through tsx without a fresh build): tens of seconds in all on a loaded machine.
  }, 300_000);
});
