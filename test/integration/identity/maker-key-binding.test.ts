import type { Socket } from 'phoenix';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ApiContext } from '../../../api/context';
import { rfqMakerTopic } from '../../../shared/events';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signedKeyAdd, signIn, signStatement } from '../../support/wallets';
import { disconnect, join, phoenixSocket, refusal, startReplica, type Replica } from '../socket/socket-harness';
import { request } from '../../support/http';

interface Person {
  wallet: PrivateKeyAccount;
  token: string;
}

/**
 * Finding 1 of the hardening review: a maker key used to bind any `address` the admin typed,
 * so org A could mint a key speaking for org B's wallet and watch `rfq_maker:<B>`. A key now
 * needs the bot wallet's own signature over the admin statement, and a wallet serves one
 * organization and one active key at most.
 */
describe('maker keys: the bot wallet proves control and is bound once', () => {
  let env: TestEnv;
  let r: Replica;
  let ctx: ApiContext;
  let orgA: string;
  let orgB: string;
  let managerA: Person;
  let ownerB: Person;
  let botB: PrivateKeyAccount;
  let takerOwner: PrivateKeyAccount;
  const sockets: Socket[] = [];
  const api = () => request(r.app);
  const client = () => {
    const s = phoenixSocket(r.url);
    sockets.push(s);
    return s;
  };

  async function person(): Promise<Person> {
    const wallet = newWallet();
    return { wallet, token: await signIn(r.app, wallet) };
  }

  async function keyRows(): Promise<{ id: string; address: string; organization_id: string; revoked_at: Date | null }[]> {
    return env.db.query(`SELECT id, address, organization_id, revoked_at FROM api_keys ORDER BY created_at, id`);
  }

  function expectProblem(res: request.Response, status: number, code: string, error: RegExp, path: string): void {
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: expect.stringMatching(error), code, details: [{ path, message: expect.any(String) }], request_id: expect.any(String) });
  }

  beforeAll(async () => {
    env = await createTestEnv({ LOGIN_RATE_LIMIT: '1000' });
    r = await startReplica(env, { withApi: true });
    ctx = r.ctx!;
    const { orgs } = ctx.services.identity;
    managerA = await person();
    ownerB = await person();
    const ownerA = newWallet();
    orgA = (await orgs.create({ kind: 'maker', name: 'Org A', owner: ownerA.address })).id;
    await orgs.addMember({ organization_id: orgA, address: managerA.wallet.address, role: 'manager' });
    orgB = (await orgs.create({ kind: 'maker', name: 'Org B', owner: ownerB.wallet.address })).id;
    botB = newWallet();
    await api()
      .post('/api/maker/keys')
      .set(bearer(ownerB.token))
      .send(await signedKeyAdd(ownerB.wallet, botB, { organization: orgB, name: 'b pricer' }))
      .expect(201);
    takerOwner = newWallet();
    await orgs.create({ kind: 'taker', name: 'Integrator', owner: takerOwner.address });
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map(disconnect));
  });
  afterAll(async () => {
    await r.close();
    await env.close();
  });

  it("the attack: org A's manager cannot bind org B's wallet, so cannot join rfq_maker:<B>", async () => {
    const before = await keyRows();
    // Exactly what the route accepted before: the admin's statement alone, no word from the bot wallet.
    const signed = await signStatement(managerA.wallet, { action: 'add_member', member: ownerB.wallet.address, organization: orgA, name: 'spy' });
    // The spec's body (issue #38): the key is created, unverified, and binds nothing of B's wallet.
    const res = await api()
      .post('/api/maker/keys')
      .set(bearer(managerA.token))
      .send({ address: ownerB.wallet.address, name: 'spy', ...signed })
      .expect(201);
    expect(res.body.verified).toBe(false);
    expect((await keyRows()).length).toBe(before.length + 1);

    // What A got back does not open B's private topic.
    const stolen = res.body.secret as string;
    expect(await refusal(client(), rfqMakerTopic(ownerB.wallet.address), { api_key: stolen })).toMatch(/unverified/);
    expect(await refusal(client(), rfqMakerTopic(botB.address), { api_key: stolen })).toMatch(/^only that maker may join/);
  });

  it('an address_signature made by any other wallet is a 403 naming the field, and changes nothing', async () => {
    const before = await keyRows();
    // A's manager signs the statement naming B's wallet, then signs again in place of the bot.
    const statement = await signStatement(managerA.wallet, { action: 'add_member', member: ownerB.wallet.address, organization: orgA, name: 'forged' });
    const forged = {
      address: ownerB.wallet.address,
      name: 'forged',
      ...statement,
      address_signature: await managerA.wallet.signMessage({ message: statement.message }),
    };
    const res = await api().post('/api/maker/keys').set(bearer(managerA.token)).send(forged);
    expectProblem(res, 403, 'address_signature_mismatch', /^address_signature is not a signature of message by address/, 'address_signature');
    expect(await keyRows()).toEqual(before);

    // The bot's signature over some other text does not count either.
    const otherText = { ...forged, address_signature: await ownerB.wallet.signMessage({ message: 'hello' }) };
    expectProblem(
      await api().post('/api/maker/keys').set(bearer(managerA.token)).send(otherText),
      403,
      'address_signature_mismatch',
      /address_signature/,
      'address_signature',
    );
    const garbage = { ...forged, address_signature: '0x1234' };
    expectProblem(
      await api().post('/api/maker/keys').set(bearer(managerA.token)).send(garbage),
      403,
      'address_signature_mismatch',
      /address_signature/,
      'address_signature',
    );
    const notHex = { ...forged, address_signature: 'signed by the bot' };
    expectProblem(
      await api().post('/api/maker/keys').set(bearer(managerA.token)).send(notHex),
      400,
      'validation_failed',
      /address_signature/,
      'address_signature',
    );
    expect(await keyRows()).toEqual(before);
  });

  it('a refused add does not use up the statement: the same statement then works with the right signature', async () => {
    const bot = newWallet();
    const body = await signedKeyAdd(managerA.wallet, bot, { organization: orgA, name: 'retry bot' });
    const wrong = { ...body, address_signature: await newWallet().signMessage({ message: body.message }) };
    await api().post('/api/maker/keys').set(bearer(managerA.token)).send(wrong).expect(403);
    const ok = await api().post('/api/maker/keys').set(bearer(managerA.token)).send(body).expect(201);
    expect(ok.body).toMatchObject({ address: bot.address, name: 'retry bot', secret: expect.stringMatching(/^mk_/) });
    // The key works on its own bot's topic and nowhere else.
    expect((await join(client(), rfqMakerTopic(bot.address), { api_key: ok.body.secret })).reply.status).toBe('ok');
    expect(await refusal(client(), rfqMakerTopic(ownerB.wallet.address), { api_key: ok.body.secret })).toMatch(/^only that maker may join/);
  });

  it('409 when the bot wallet, even consenting, belongs to another organization of either kind', async () => {
    const before = await keyRows();
    for (const [wallet, kind] of [
      [ownerB.wallet, 'maker'],
      [takerOwner, 'taker'],
    ] as const) {
      const body = await signedKeyAdd(managerA.wallet, wallet, { organization: orgA, name: `from ${kind}` });
      const res = await api().post('/api/maker/keys').set(bearer(managerA.token)).send(body);
      expectProblem(res, 409, 'bot_address_in_other_organization', new RegExp(`^${wallet.address} belongs to another ${kind} organization`), 'address');
    }
    expect(await keyRows()).toEqual(before);
  });

  it("409 when the address is already an active key's, in another organization or the same one; free again once removed", async () => {
    const before = await keyRows();
    const other = await api()
      .post('/api/maker/keys')
      .set(bearer(managerA.token))
      .send(await signedKeyAdd(managerA.wallet, botB, { organization: orgA, name: 'copy of b' }));
    expectProblem(other, 409, 'bot_address_in_use', new RegExp(`^${botB.address} is already the address of an active maker key`), 'address');
    expect(await keyRows()).toEqual(before);

    const bot = newWallet();
    const first = await api()
      .post('/api/maker/keys')
      .set(bearer(managerA.token))
      .send(await signedKeyAdd(managerA.wallet, bot, { organization: orgA, name: 'one' }))
      .expect(201);
    const same = await api()
      .post('/api/maker/keys')
      .set(bearer(managerA.token))
      .send(await signedKeyAdd(managerA.wallet, bot, { organization: orgA, name: 'two' }));
    expectProblem(same, 409, 'bot_address_in_use', /already the address of an active maker key/, 'address');

    const removal = await signStatement(managerA.wallet, { action: 'remove_member', member: bot.address, organization: orgA, name: 'one' });
    await api().delete(`/api/maker/keys/${first.body.id}`).set(bearer(managerA.token)).send(removal).expect(200);
    await api()
      .post('/api/maker/keys')
      .set(bearer(managerA.token))
      .send(await signedKeyAdd(managerA.wallet, bot, { organization: orgA, name: 'rotated' }))
      .expect(201);
  });

  it('a wallet of the same organization may be its bot', async () => {
    const res = await api()
      .post('/api/maker/keys')
      .set(bearer(managerA.token))
      .send(await signedKeyAdd(managerA.wallet, managerA.wallet, { organization: orgA, name: 'manager as bot' }));
    expect(res.status).toBe(201);
    expect(res.body.address).toBe(managerA.wallet.address);
  });

  it('two concurrent adds of one bot wallet: exactly one key, the other 409', async () => {
    const bot = newWallet();
    const bodies = await Promise.all(['race one', 'race two', 'race three'].map((name) => signedKeyAdd(managerA.wallet, bot, { organization: orgA, name })));
    const results = await Promise.all(bodies.map((b) => api().post('/api/maker/keys').set(bearer(managerA.token)).send(b)));
    expect(results.map((x) => x.status).sort()).toEqual([201, 409, 409]);
    for (const x of results.filter((y) => y.status === 409)) expect(x.body.code).toBe('bot_address_in_use');
    const rows = (await keyRows()).filter((k) => k.address === bot.address && k.revoked_at === null);
    expect(rows).toHaveLength(1);
  });
});
