import type { Socket } from 'phoenix';
import type { PrivateKeyAccount } from 'viem/accounts';
import { PubsubRegistrations, quotesRequestsTopic, rfqMakerTopic } from '../../../shared/events';
import { ApiKeyRepository } from '../../../shared/identity/api-key.repository';
import { NetworksService } from '../../../shared/networks';
import { networkFile } from '../../support/fixtures';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn, signStatement } from '../../support/wallets';
import { disconnect, issueMakerKey, join, phoenixSocket, refusal, startReplica, waitFor, waitForAsync, type Replica } from './socket-harness';
import { request } from '../../support/http';

/**
 * Revocation is announced once over Redis pub/sub; a replica whose subscriber was reconnecting
 * at that moment never hears it. These tests revoke keys in the database only (the announcement
 * is "lost") and expect the periodic re-check to find them.
 */
describe('socket tier: key-authenticated channels are re-checked against the database', () => {
  let env: TestEnv;
  let api: Replica;
  let r: Replica;
  let keys: ApiKeyRepository;
  let regs: PubsubRegistrations;
  let owner: { wallet: PrivateKeyAccount; token: string };
  let orgId: string;
  const sockets: Socket[] = [];
  const client = (opts = {}) => {
    const s = phoenixSocket(r.url, opts);
    sockets.push(s);
    return s;
  };

  async function person() {
    const wallet = newWallet();
    return { wallet, token: await signIn(api.app, wallet) };
  }

  beforeAll(async () => {
    env = await createTestEnv({ LOGIN_RATE_LIMIT: '1000' });
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    await new NetworksService(env.db).upsertNetwork(networkFile(31338));
    api = await startReplica(env, { withApi: true });
    // a long credential cache: the re-check must win over it too
    r = await startReplica(env, { settings: { SOCKET_KEY_RECHECK_INTERVAL_MS: 200, SOCKET_CREDENTIAL_CACHE_MS: 60_000 } });
    keys = new ApiKeyRepository(env.db);
    regs = new PubsubRegistrations(env.redis, env.config);
    owner = await person();
    orgId = (await api.ctx!.services.identity.orgs.create({ kind: 'maker', name: 'Recheck Makers', owner: owner.wallet.address })).id;
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map(disconnect));
  });
  afterAll(async () => {
    await Promise.all([api.close(), r.close()]);
    await env.close();
  });

  it('drops the channels of a maker key revoked without announcement, and its premium registrations', async () => {
    const key = await issueMakerKey(api.app, owner, orgId, 'silently removed');
    for (const chain_id of [31337, 31338]) await request(api.app).post('/api/pubsub/premium').set(bearer(key.secret)).send({ chain_id }).expect(200);
    const s = client();
    const mine = await join(s, rfqMakerTopic(key.bot), { api_key: key.secret });
    const feed = await join(s, quotesRequestsTopic(31337), { api_key: key.secret });
    expect([mine.reply.status, feed.reply.status]).toEqual(['ok', 'ok']);

    expect(await keys.revoke(key.id, orgId, 'maker')).not.toBeNull();
    await waitFor(() => mine.ends.length === 1 && feed.ends.length === 1, 10_000, 'the re-check to close both channels');
    expect(mine.ends[0]).toEqual({ event: 'phx_close', payload: { reason: 'api key revoked' } });
    expect(feed.ends[0]).toEqual({ event: 'phx_close', payload: { reason: 'api key revoked' } });
    expect(await refusal(s, rfqMakerTopic(key.bot), { api_key: key.secret })).toBe('invalid api_key');

    const tiers = async () => [await regs.tierOf(31337, key.bot), await regs.tierOf(31338, key.bot)];
    await waitForAsync(async () => (await tiers()).every((t) => t === null), 10_000, 'both registrations to be dropped');
    expect(await tiers()).toEqual([null, null]);
  });

  it('drops the channels of a delegate whose taker key was revoked without announcement', async () => {
    const takerOwner = await person();
    const takerOrg = await api.ctx!.services.identity.orgs.create({ kind: 'taker', name: 'Recheck Takers', owner: takerOwner.wallet.address });
    const tk = await request(api.app).post('/api/taker/keys').set(bearer(takerOwner.token)).send({ name: 'minter' }).expect(201);
    const user = newWallet().address;
    const delegate = await request(api.app).post('/api/taker/delegate').set(bearer(tk.body.secret)).send({ address: user, expires_in: 600 }).expect(200);
    await request(api.app).post('/api/pubsub/freemium').set(bearer(delegate.body.token)).send({ chain_id: 31337 }).expect(200);
    const feed = await join(client(), quotesRequestsTopic(31337), { token: delegate.body.token });
    expect(feed.reply.status).toBe('ok');

    expect(await keys.revoke(tk.body.id, takerOrg.id, 'taker')).not.toBeNull();
    await waitFor(() => feed.ends.length === 1, 10_000, 'the re-check to close the delegate channel');
    expect(feed.ends[0]).toEqual({ event: 'phx_close', payload: { reason: 'api key revoked' } });
  });

  it('drops the registrations a removed key made when it is removed, and only those', async () => {
    const key = await issueMakerKey(api.app, owner, orgId, 'removed by route');
    await request(api.app).post('/api/pubsub/premium').set(bearer(key.secret)).send({ chain_id: 31337 }).expect(200);
    await request(api.app).post('/api/pubsub/premium').set(bearer(owner.token)).send({ chain_id: 31337 }).expect(200);
    expect(await regs.tierOf(31337, key.bot)).toBe('premium');

    const signed = await signStatement(owner.wallet, { action: 'remove_member', member: key.bot, organization: orgId, name: 'removed by route' });
    await request(api.app).delete(`/api/maker/keys/${key.id}`).set(bearer(owner.token)).send(signed).expect(200);
    expect(await regs.tierOf(31337, key.bot)).toBeNull();
    expect(await regs.tierOf(31337, owner.wallet.address)).toBe('premium');
  });

  it('drops, on a periodic sweep, registrations left over by a key revoked while none of its channels was open', async () => {
    const key = await issueMakerKey(api.app, owner, orgId, 'never connected');
    await request(api.app).post('/api/pubsub/premium').set(bearer(key.secret)).send({ chain_id: 31338 }).expect(200);
    expect(await keys.revoke(key.id, orgId, 'maker')).not.toBeNull();
    await waitForAsync(async () => (await regs.tierOf(31338, key.bot)) === null, 10_000, 'the leftover registration to be dropped');
    expect(await regs.tierOf(31338, key.bot)).toBeNull();
  });
});
