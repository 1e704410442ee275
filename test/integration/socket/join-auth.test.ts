import type { Socket } from 'phoenix';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ApiContext } from '../../../api/context';
import {
  exploreClobStreamTopic,
  LIVE_TOPIC_KINDS,
  marginRequestsTopic,
  quotesRequestsTopic,
  rfqMakerTopic,
  rfqStreamTopic,
  TOPIC_TABLE,
  topicName,
  topics,
} from '../../../shared/events';
import { NetworksService } from '../../../shared/networks';
import { randomUUID } from 'node:crypto';
import { hashStreamToken, SignedStreamTokens, SIGNED_TOKEN_LENGTH, StreamTokens, streamTokenKeys } from '../../../shared/platform/stream-tokens';
import { quoteBody, STRATEGY_ROWS } from '../../support/quotes';
import { networkFile, randomAddress } from '../../support/fixtures';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn, signStatement } from '../../support/wallets';
import { disconnect, issueMakerKey, join, phoenixSocket, publisher, refusal, startReplica, waitFor, type Replica } from './socket-harness';
import { request } from '../../support/http';

describe('socket tier: who may join what', () => {
  let env: TestEnv;
  let r: Replica;
  let ctx: ApiContext;
  let tokens: StreamTokens;
  let orgId: string;
  let owner: { wallet: PrivateKeyAccount; token: string };
  let outsider: { wallet: PrivateKeyAccount; token: string };
  const sockets: Socket[] = [];
  const client = (opts = {}) => {
    const s = phoenixSocket(r.url, opts);
    sockets.push(s);
    return s;
  };
  const api = () => request(r.app);

  async function person() {
    const wallet = newWallet();
    return { wallet, token: await signIn(r.app, wallet) };
  }

  const makerKey = (name: string) => issueMakerKey(r.app, owner, orgId, name);

  beforeAll(async () => {
    env = await createTestEnv({ SOCKET_SWEEP_INTERVAL_MS: '100', LOGIN_RATE_LIMIT: '1000' });
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    r = await startReplica(env, { withApi: true });
    ctx = r.ctx!;
    tokens = new StreamTokens(env.redis, env.config.REDIS_PREFIX);
    owner = await person();
    outsider = await person();
    orgId = (await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Socket Makers', owner: owner.wallet.address })).id;
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map(disconnect));
  });
  afterAll(async () => {
    await r.close();
    await env.close();
  });

  describe('POST /api/pubsub/premium and /freemium', () => {
    it('registers a maker for premium and answers the spec shape', async () => {
      const res = await api().post('/api/pubsub/premium').set(bearer(owner.token)).send({ chain_id: 31337 }).expect(200);
      expect(res.body).toEqual({
        status: 'registered',
        tier: 'premium',
        chain_id: 31337,
        socket_path: '/socket',
        quotes_requests_topic: 'quotes:31337:requests',
        rfq_maker_stream_topic: `rfq_maker:${owner.wallet.address}`,
      });
      const key = await makerKey('premium bot');
      const byKey = await api().post('/api/pubsub/premium').set(bearer(key.secret)).send({ chain_id: 31337 }).expect(200);
      expect(byKey.body.rfq_maker_stream_topic).toBe(`rfq_maker:${key.bot}`);
    });

    it('registers any signed-in wallet for freemium; premium needs maker rights', async () => {
      const res = await api().post('/api/pubsub/freemium').set(bearer(outsider.token)).send({ chain_id: 31337 }).expect(200);
      expect(res.body).toMatchObject({ status: 'registered', tier: 'freemium', rfq_maker_stream_topic: `rfq_maker:${outsider.wallet.address}` });
      expect((await api().post('/api/pubsub/premium').set(bearer(outsider.token)).send({ chain_id: 31337 }).expect(403)).body.code).toBe(
        'maker_rights_required',
      );
      await api().post('/api/pubsub/freemium').send({ chain_id: 31337 }).expect(401);
      await api().post('/api/pubsub/premium').send({ chain_id: 31337 }).expect(401);
    });

    it('refuses an unknown chain and a bad body with 400', async () => {
      const unknown = await api().post('/api/pubsub/freemium').set(bearer(outsider.token)).send({ chain_id: 999 }).expect(400);
      expect(unknown.body.details).toEqual([{ path: 'chain_id', message: expect.stringMatching(/unknown chain 999/) }]);
      const bad = await api().post('/api/pubsub/freemium').set(bearer(outsider.token)).send({ chain_id: '31337' }).expect(400);
      expect(bad.body.details[0].path).toBe('chain_id');
    });
  });

  describe('quotes:<chain_id>:requests', () => {
    const topic = quotesRequestsTopic(31337);

    it('needs a credential, a valid one, and a registration for that chain', async () => {
      const wallet = await person();
      const s = client();
      expect(await refusal(s, topic)).toMatch(/^authentication required/);
      expect(await refusal(s, topic, { token: 'not-a-token' })).toBe('invalid or expired token');
      expect(await refusal(s, topic, { token: wallet.token })).toMatch(/^not registered for chain 31337/);
      await api().post('/api/pubsub/freemium').set(bearer(wallet.token)).send({ chain_id: 31337 }).expect(200);
      expect(await refusal(s, quotesRequestsTopic(1), { token: wallet.token })).toMatch(/^not registered for chain 1/);
      expect(await refusal(s, topic, { api_key: wallet.token })).toBe('invalid api_key');
      const j = await join(s, topic, { token: wallet.token });
      expect(j.reply.status).toBe('ok');
    });

    it('starts live without last_seq (reply {seq: head}), replays with it', async () => {
      const key = await makerKey('feed bot');
      await api().post('/api/pubsub/premium').set(bearer(key.secret)).send({ chain_id: 31337 }).expect(200);
      const pub = publisher(env);
      const before = (await pub.publish(topics.quotesRequests(31337), 'rfq_request', { quote_id: 'old', chain_id: 31337 })).seq;

      const live = await join(client(), topic, { api_key: key.secret });
      expect(live.reply.response).toEqual({ seq: before });
      const replayed = await join(client(), topic, { api_key: key.secret, last_seq: before - 1 });
      expect(replayed.reply.response).toEqual({ seq: before - 1, recovered: true });

      await pub.publish(topics.quotesRequests(31337), 'rfq_request', { quote_id: 'new', chain_id: 31337 });
      await waitFor(() => live.events.length === 1 && replayed.events.length === 2);
      expect(live.events.map((e) => e.payload.quote_id)).toEqual(['new']);
      expect(replayed.events.map((e) => e.payload.quote_id)).toEqual(['old', 'new']);
    });

    it('takes the maker key from the connection query (?api_key=) when the join carries none', async () => {
      const key = await makerKey('query bot');
      await api().post('/api/pubsub/premium').set(bearer(key.secret)).send({ chain_id: 31337 }).expect(200);
      const j = await join(client({ params: { api_key: key.secret } }), topic);
      expect(j.reply.status).toBe('ok');
    });
  });

  describe('rfq_maker:<address>', () => {
    it('admits that maker by SIWE bearer (any address case) or by one of its maker keys, nobody else', async () => {
      const s = client();
      const own = await join(s, rfqMakerTopic(owner.wallet.address).toLowerCase(), { token: owner.token });
      expect(own.reply.status).toBe('ok');
      await publisher(env).publish(topics.rfqMaker(owner.wallet.address), 'rfq_result', { quote_id: 'q9' });
      await waitFor(() => own.events.length === 1);
      expect(own.events[0]).toEqual({ event: 'rfq_result', payload: { seq: 1, quote_id: 'q9' } });

      expect(await refusal(s, rfqMakerTopic(owner.wallet.address), { token: outsider.token })).toMatch(/^only that maker may join/);
      const stranger = await person();
      expect(await refusal(s, rfqMakerTopic(stranger.wallet.address), { token: stranger.token })).toBe(
        'maker rights or a pubsub registration required: POST /api/pubsub/freemium first',
      );
      const key = await makerKey('maker topic bot');
      expect((await join(s, rfqMakerTopic(key.bot), { api_key: key.secret })).reply.status).toBe('ok');
      expect(await refusal(client(), rfqMakerTopic(owner.wallet.address), { api_key: key.secret })).toMatch(/^only that maker may join/);
    });

    it('admits a freemium wallet to the rfq_maker topic its registration advertises, by its SIWE bearer', async () => {
      const wallet = await person();
      const reg = await api().post('/api/pubsub/freemium').set(bearer(wallet.token)).send({ chain_id: 31337 }).expect(200);
      expect(reg.body.rfq_maker_stream_topic).toBe(`rfq_maker:${wallet.wallet.address}`);
      const j = await join(client(), reg.body.rfq_maker_stream_topic, { token: wallet.token });
      expect(j.reply).toEqual({ status: 'ok', response: { seq: 0 } });
      await publisher(env).publish(topics.rfqMaker(wallet.wallet.address), 'rfq_result', { quote_id: 'mine' });
      await waitFor(() => j.events.length === 1);
      expect(j.events[0]).toEqual({ event: 'rfq_result', payload: { seq: 1, quote_id: 'mine' } });
    });

    it("lets nobody join another wallet's rfq_maker topic: not another registered wallet, not a delegate named for it", async () => {
      const victim = await person();
      const other = await person();
      await api().post('/api/pubsub/freemium').set(bearer(victim.token)).send({ chain_id: 31337 }).expect(200);
      await api().post('/api/pubsub/freemium').set(bearer(other.token)).send({ chain_id: 31337 }).expect(200);
      const s = client();
      expect(await refusal(s, rfqMakerTopic(victim.wallet.address), { token: other.token })).toMatch(/^only that maker may join/);

      // a taker organization names a delegate's wallet itself: the delegate proves no control of it
      const takerOwner = await person();
      await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Delegating Takers', owner: takerOwner.wallet.address });
      const tk = await api().post('/api/taker/keys').set(bearer(takerOwner.token)).send({ name: 'minter' }).expect(201);
      const delegate = await api()
        .post('/api/taker/delegate')
        .set(bearer(tk.body.secret))
        .send({ address: victim.wallet.address, expires_in: 600 })
        .expect(200);
      const viaDelegate = await api().post('/api/pubsub/freemium').set(bearer(delegate.body.token)).send({ chain_id: 31337 }).expect(200);
      expect(viaDelegate.body).not.toHaveProperty('rfq_maker_stream_topic');
      expect(await refusal(s, rfqMakerTopic(victim.wallet.address), { token: delegate.body.token })).toMatch(/^only that maker may join/);
      expect(await refusal(s, rfqMakerTopic(victim.wallet.address), { api_key: tk.body.secret })).toBe('invalid api_key');
    });

    it('takes a SIWE bearer given as the phoenix.js authToken', async () => {
      const j = await join(client({ authToken: owner.token }), rfqMakerTopic(owner.wallet.address));
      expect(j.reply.status).toBe('ok');
    });
  });

  describe('token-named topics', () => {
    it('admit exactly a valid, unexpired token of the right kind', async () => {
      const s = client();
      const rfq = await tokens.mint('rfq', 60, { quote_id: 'q' });
      const clob = await tokens.mint('explore_clob', 60, { clob: '0x1' });
      expect((await join(s, rfqStreamTopic(rfq))).reply.status).toBe('ok');
      expect((await join(s, exploreClobStreamTopic(clob))).reply.status).toBe('ok');
      expect(await refusal(s, rfqStreamTopic(clob))).toBe('invalid or expired stream token');
      expect(await refusal(s, rfqStreamTopic('A'.repeat(43)))).toBe('invalid or expired stream token');
    });

    it('admit every token topic of the table by a token of its own stream kind only', async () => {
      const s = client();
      const tokenTopics = LIVE_TOPIC_KINDS.flatMap((kind) => {
        const streamKind = TOPIC_TABLE[kind].streamKind;
        return streamKind ? [{ kind, streamKind }] : [];
      });
      expect(tokenTopics.length).toBeGreaterThan(0);
      for (const { kind, streamKind } of tokenTopics) {
        const own = await tokens.mint(streamKind, 60, {});
        const foreign = await tokens.mint(streamKind === 'rfq' ? 'explore_loan' : 'rfq', 60, {});
        expect([kind, (await join(s, topicName(kind, own as never))).reply.status]).toEqual([kind, 'ok']);
        expect([kind, await refusal(s, topicName(kind, foreign as never))]).toEqual([kind, 'invalid or expired stream token']);
      }
    });

    it("a quote's signed token joins while its quote row says so: refused for another kind, tampered, without its row, or long after its close (revocation by state)", async () => {
      const s = client();
      const create = async () =>
        (await api().post('/api/quote').send(quoteBody(randomAddress(), STRATEGY_ROWS[0].legs)).expect(201)).body as {
          quote: { id: string };
          stream_token: string;
        };
      const a = await create();
      expect(a.stream_token).toHaveLength(SIGNED_TOKEN_LENGTH);
      expect((await join(s, rfqStreamTopic(a.stream_token))).reply.status).toBe('ok');
      expect(await refusal(s, exploreClobStreamTopic(a.stream_token))).toBe('invalid or expired stream token');
      const tampered = Buffer.from(a.stream_token, 'base64url');
      tampered[10] ^= 1;
      expect(await refusal(s, rfqStreamTopic(tampered.toString('base64url')))).toBe('invalid or expired stream token');
      // Signed with the server's own key, for a quote that was never stored: the HMAC alone opens nothing.
      const signer = new SignedStreamTokens(streamTokenKeys(env.config));
      expect(await refusal(s, rfqStreamTopic(signer.mint('rfq', randomUUID(), Date.now() + 60_000)))).toBe('invalid or expired stream token');
      // Closed longer ago than QUOTE_STREAM_GRACE_SECONDS: its stream is over, whatever the token's end says.
      const b = await create();
      expect((await join(client(), rfqStreamTopic(b.stream_token))).reply.status).toBe('ok');
      const grace = env.config.QUOTE_STREAM_GRACE_SECONDS;
      await env.db.query(`UPDATE quotes SET state = 'cancelled', closed_at = now() - make_interval(secs => $2) WHERE id = $1`, [b.quote.id, grace + 1]);
      expect(await refusal(s, rfqStreamTopic(b.stream_token))).toBe('invalid or expired stream token');
      // Purged (retention): nothing left to open.
      const c = await create();
      await env.db.query(`DELETE FROM quote_legs WHERE quote_id = $1`, [c.quote.id]);
      await env.db.query(`DELETE FROM quotes WHERE id = $1`, [c.quote.id]);
      expect(await refusal(s, rfqStreamTopic(c.stream_token))).toBe('invalid or expired stream token');
    });

    it('refuses the coming-soon margin topics', async () => {
      expect(await refusal(client(), marginRequestsTopic(31337))).toMatch(/coming soon/);
    });
  });

  describe('credentials that end', () => {
    it('an expired stream token ends its channel with phx_close; a rejoin is refused', async () => {
      const token = await tokens.mint('rfq', 1, {});
      const s = client();
      const j = await join(s, rfqStreamTopic(token));
      expect(j.reply.status).toBe('ok');
      await waitFor(() => j.ends.length === 1, 3000, 'phx_close');
      expect(j.ends).toEqual([{ event: 'phx_close', payload: { reason: 'credential expired' } }]);
      // a sentinel on another topic of the same connection: one subscriber, one socket, so it arrives after 'late' would have
      const other = await tokens.mint('rfq', 60, {});
      const sentinel = await join(s, rfqStreamTopic(other));
      await publisher(env).publish(topics.rfqStream(hashStreamToken(token)), 'rfq_offer', { quote_id: 'late' });
      await publisher(env).publish(topics.rfqStream(hashStreamToken(other)), 'rfq_offer', { quote_id: 'sentinel' });
      await waitFor(() => sentinel.events.length === 1, 5000, 'the sentinel');
      expect(j.events).toHaveLength(0);
      expect(await refusal(s, rfqStreamTopic(token))).toBe('invalid or expired stream token');
    });

    it('a revoked stream token ends its channels at once', async () => {
      const token = await tokens.mint('rfq', 600, {});
      const j = await join(client(), rfqStreamTopic(token));
      expect(await tokens.revoke('rfq', token)).toBe(true);
      await waitFor(() => j.ends.length === 1, 3000, 'phx_close');
      expect(j.ends[0]).toEqual({ event: 'phx_close', payload: { reason: 'stream token revoked' } });
    });

    it('a revoked maker key ends every channel it opened, and cannot join again', async () => {
      const key = await makerKey('doomed bot');
      await api().post('/api/pubsub/premium').set(bearer(key.secret)).send({ chain_id: 31337 }).expect(200);
      const s = client();
      const mine = await join(s, rfqMakerTopic(key.bot), { api_key: key.secret });
      const feed = await join(s, quotesRequestsTopic(31337), { api_key: key.secret });
      const ownerFeed = await join(client(), rfqMakerTopic(owner.wallet.address), { token: owner.token });
      expect([mine.reply.status, feed.reply.status, ownerFeed.reply.status]).toEqual(['ok', 'ok', 'ok']);

      const signed = await signStatement(owner.wallet, { action: 'remove_member', member: key.bot, organization: orgId, name: 'doomed bot' });
      await api().delete(`/api/maker/keys/${key.id}`).set(bearer(owner.token)).send(signed).expect(200);
      await waitFor(() => mine.ends.length === 1 && feed.ends.length === 1, 3000, 'both channels closed');
      expect(mine.ends[0]).toEqual({ event: 'phx_close', payload: { reason: 'api key revoked' } });
      expect(feed.ends[0]).toEqual({ event: 'phx_close', payload: { reason: 'api key revoked' } });
      expect(ownerFeed.ends).toHaveLength(0);
      expect(await refusal(s, rfqMakerTopic(key.bot), { api_key: key.secret })).toBe('invalid api_key');
    });
  });
});
