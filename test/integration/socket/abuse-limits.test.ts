import net from 'node:net';
import type { Socket } from 'phoenix';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { ApiContext } from '../../../api/context';
import { quotesRequestsTopic, rfqStreamTopic, topics } from '../../../shared/events';
import { NetworksService } from '../../../shared/networks';
import { hashStreamToken, StreamTokens } from '../../../shared/platform/stream-tokens';
import { networkFile } from '../../support/fixtures';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, newWallet, signIn, signStatement } from '../../support/wallets';
import {
  disconnect,
  issueMakerKey,
  join,
  metricValue,
  phoenixSocket,
  publisher,
  RawClient,
  refusal,
  sleep,
  startReplica,
  waitFor,
  type Joined,
  type Replica,
} from './socket-harness';
import { request } from '../../support/http';

/** A connection that is still served: a heartbeat is answered. */
async function heartbeatAnswered(c: RawClient, ref: string): Promise<void> {
  c.send([null, ref, 'phoenix', 'heartbeat', {}]);
  await c.next((m) => Array.isArray(m) && m[1] === ref && m[3] === 'phx_reply');
}

/** Opens a bare connection once the replica has given the address's slot back (it learns of a close a moment after the client). */
async function openWhenFree(url: string): Promise<RawClient> {
  const until = Date.now() + 5000;
  for (;;) {
    const h = await handshake(url);
    if ('client' in h) return h.client;
    if (h.refused !== 'handshake answered 429' || Date.now() > until) throw new Error(`the slot was not given back: ${h.refused}`);
    await sleep(20);
  }
}

/** Opens a bare connection, or answers the handshake's status when it is refused. */
async function handshake(url: string, headers?: Record<string, string>): Promise<{ client: RawClient } | { refused: string }> {
  try {
    return { client: await RawClient.open(url, undefined, headers) };
  } catch (err) {
    return { refused: (err as Error).message };
  }
}

describe('socket tier: abuse limits', () => {
  let env: TestEnv;
  let r: Replica;
  const sockets: Socket[] = [];
  const raws: RawClient[] = [];
  const client = (url = r.url, opts = {}) => {
    const s = phoenixSocket(url, opts);
    sockets.push(s);
    return s;
  };
  const raw = async (url = `${r.wsUrl}?vsn=2.0.0`) => {
    const c = await RawClient.open(url);
    raws.push(c);
    return c;
  };
  const stream = async (tokens: StreamTokens) => {
    const token = await tokens.mint('rfq', 600, {});
    return { topic: rfqStreamTopic(token), ref: topics.rfqStream(hashStreamToken(token)) };
  };

  beforeAll(async () => {
    env = await createTestEnv({ LOGIN_RATE_LIMIT: '1000' });
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    r = await startReplica(env, { withApi: true });
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map(disconnect));
    for (const c of raws.splice(0)) c.close();
  });
  afterAll(async () => {
    await r.close();
    await env.close();
  });

  describe('connection caps', () => {
    it('refuses the upgrade past the per-address cap with 429, counted by reason; a freed slot is usable again', async () => {
      const capped = await startReplica(env, { settings: { SOCKET_MAX_CONNECTIONS_PER_IP: 3 } });
      try {
        const url = `${capped.wsUrl}?vsn=2.0.0`;
        const open = [await raw(url), await raw(url), await raw(url)];
        expect(await handshake(url)).toEqual({ refused: 'handshake answered 429' });
        expect(await metricValue(capped, 'socket_upgrades_refused_total', { reason: 'per_ip' })).toBe(1);

        // the official client sees the refusal as a transport error and keeps retrying
        const errors: unknown[] = [];
        const s = client(capped.url, { reconnectAfterMs: () => 60_000 });
        s.onError((e: unknown) => {
          errors.push(e);
        });
        await waitFor(() => errors.length > 0, 5000, 'the phoenix client to see the refusal');
        expect(s.isConnected()).toBe(false);

        // the three joined connections were not touched by the refusals
        await heartbeatAnswered(open[0], 'still-1');
        open[2].close();
        await waitFor(() => capped.socket.connectionCount === 2, 5000, 'the closed connection to free its slot');
        const again = await handshake(url);
        expect('client' in again).toBe(true);
        if ('client' in again) raws.push(again.client);
      } finally {
        await capped.close();
      }
    });

    it('gives the slot back when ws refuses the handshake, and when a joined client drops without a close frame', async () => {
      const capped = await startReplica(env, { settings: { SOCKET_MAX_CONNECTIONS_PER_IP: 1 } });
      try {
        const url = `${capped.wsUrl}?vsn=2.0.0`;
        // an upgrade our checks let through (it takes the slot) but ws refuses: no Sec-WebSocket-Key
        const answer = await new Promise<string>((resolve, reject) => {
          let text = '';
          const tcp = net.connect(capped.port, '127.0.0.1', () =>
            tcp.write(
              `GET /socket/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n`,
            ),
          );
          tcp.on('data', (d) => (text += String(d)));
          tcp.on('close', () => resolve(text.split('\r\n')[0]));
          tcp.on('error', reject);
        });
        expect(answer).toBe('HTTP/1.1 400 Bad Request');
        const first = await openWhenFree(url);
        await heartbeatAnswered(first, 'first');
        // no close frame: the TCP socket just ends
        first.close();
        const second = await openWhenFree(url);
        raws.push(second);
        await heartbeatAnswered(second, 'second');
        expect(capped.socket.connectionCount).toBe(1);
      } finally {
        await capped.close();
      }
    });

    it('refuses the upgrade past the replica-wide cap with 503', async () => {
      const capped = await startReplica(env, { settings: { SOCKET_MAX_CONNECTIONS: 2 } });
      try {
        const url = `${capped.wsUrl}?vsn=2.0.0`;
        const [a] = [await raw(url), await raw(url)];
        expect(await handshake(url)).toEqual({ refused: 'handshake answered 503' });
        expect(await metricValue(capped, 'socket_upgrades_refused_total', { reason: 'replica_full' })).toBe(1);
        await heartbeatAnswered(a, 'alive');
      } finally {
        await capped.close();
      }
    });

    it('counts clients behind a trusted proxy by their forwarded address, an IPv6 /64 as one client', async () => {
      const capped = await startReplica(env, { settings: { SOCKET_MAX_CONNECTIONS_PER_IP: 1, TRUST_PROXY_HOPS: 1 } });
      try {
        const url = `${capped.wsUrl}?vsn=2.0.0`;
        const from = async (xff: string) => {
          const h = await handshake(url, { 'x-forwarded-for': xff });
          if ('client' in h) raws.push(h.client);
          return 'client' in h ? 'open' : h.refused;
        };
        expect(await from('203.0.113.7')).toBe('open');
        expect(await from('198.51.100.1, 203.0.113.8')).toBe('open');
        expect(await from('203.0.113.7')).toBe('handshake answered 429');
        expect(await from('2001:db8:1:2::10')).toBe('open');
        expect(await from('2001:db8:1:2:ffff::1')).toBe('handshake answered 429');
      } finally {
        await capped.close();
      }
    });
  });

  describe('join rate per connection', () => {
    it('answers joins past the burst with a Phoenix error and keeps the connection; an abusive one is closed 1008', async () => {
      const limited = await startReplica(env, { settings: { SOCKET_JOIN_BURST: 3, SOCKET_JOIN_RATE_PER_MINUTE: 1, SOCKET_MAX_JOIN_REFUSALS: 5 } });
      try {
        const tokens = new StreamTokens(env.redis, env.config.REDIS_PREFIX);
        const s = client(limited.url);
        const streams = [await stream(tokens), await stream(tokens), await stream(tokens)];
        const joined: Joined[] = [];
        for (const st of streams) joined.push(await join(s, st.topic));
        expect(joined.map((j) => j.reply.status)).toEqual(['ok', 'ok', 'ok']);
        const extra = await stream(tokens);
        expect(await refusal(s, extra.topic)).toBe('too many joins: slow down');
        expect(await metricValue(limited, 'socket_joins_total', { result: 'rate_limited' })).toBe(1);

        // the connection and the channels it already had live on
        await publisher(env).publish(streams[0].ref, 'rfq_offer', { quote_id: 'after the refusal' });
        await waitFor(() => joined[0].events.length === 1, 5000, 'an event on a channel joined before');
        expect(s.isConnected()).toBe(true);

        const spam = await raw(`${limited.wsUrl}?vsn=2.0.0`);
        for (let i = 0; i < 3; i++) spam.send([`${i}`, `${i}`, streams[i].topic, 'phx_join', {}]);
        await waitFor(() => spam.messages.filter((m: any) => m[3] === 'phx_reply').length === 3, 5000, 'three join replies');
        for (let i = 3; i < 3 + 6; i++) spam.send([`${i}`, `${i}`, extra.topic, 'phx_join', {}]);
        expect(await spam.closed).toEqual({ code: 1008, reason: 'too many joins' });
        const refusals = spam.messages.filter((m: any) => m[3] === 'phx_reply' && m[4].response.reason === 'too many joins: slow down');
        expect(refusals).toHaveLength(5);
        expect(await metricValue(limited, 'socket_disconnects_total', { reason: 'join_flood' })).toBe(1);
      } finally {
        await limited.close();
      }
    });
  });

  describe('replayed bytes per connection', () => {
    it('refuses last_seq replays past the budget with a clear reason; the connection and live joins go on', async () => {
      const budgeted = await startReplica(env, { settings: { SOCKET_REPLAY_BUDGET_BYTES: 2048, SOCKET_REPLAY_BUDGET_WINDOW_MS: 3_600_000 } });
      try {
        const tokens = new StreamTokens(env.redis, env.config.REDIS_PREFIX);
        const { topic, ref } = await stream(tokens);
        const pub = publisher(env);
        for (let i = 0; i < 8; i++) await pub.publish(ref, 'rfq_offer', { quote_id: 'q', pad: 'x'.repeat(400), i });

        const s = client(budgeted.url);
        const first = await join(s, topic, { last_seq: 0 });
        expect(first.reply).toEqual({ status: 'ok', response: { seq: 0, recovered: true } });
        await waitFor(() => first.events.length === 8);
        expect(await metricValue(budgeted, 'socket_replayed_bytes_total')).toBeGreaterThan(2048);

        const again = await join(client(budgeted.url, { params: {} }), topic, { last_seq: 0 });
        expect(again.reply.status).toBe('ok');
        again.channel.leave();

        first.channel.leave();
        const refused = await refusal(s, topic, { last_seq: 3 });
        expect(refused).toMatch(/^replay budget of this connection used up: retry in \d+ s$/);
        expect(await metricValue(budgeted, 'socket_joins_total', { result: 'replay_budget' })).toBe(1);

        const shared = await registeredWallet();
        const live = await join(s, quotesRequestsTopic(31337), shared.params);
        expect(live.reply.status).toBe('ok');
        live.channel.leave();
        const refusedShared = await refusal(s, quotesRequestsTopic(31337), { ...shared.params, last_seq: 0 });
        expect(refusedShared).toMatch(/^replay budget of this connection used up: retry in \d+ s, or join without last_seq to start live$/);
      } finally {
        await budgeted.close();
      }
    });
  });

  describe('credential lookups on join', () => {
    let ctx: ApiContext;
    let owner: { wallet: PrivateKeyAccount; token: string };
    let orgId: string;

    beforeAll(async () => {
      ctx = r.ctx!;
      const wallet = newWallet();
      owner = { wallet, token: await signIn(r.app, wallet) };
      orgId = (await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Cached Makers', owner: wallet.address })).id;
    });

    it('reuses a maker key lookup within the cache window, yet a removed key is refused at once', async () => {
      const cached = await startReplica(env, { settings: { SOCKET_CREDENTIAL_CACHE_MS: 60_000 } });
      try {
        const key = await issueMakerKey(r.app, owner, orgId, 'cached bot');
        await request(r.app).post('/api/pubsub/premium').set(bearer(key.secret)).send({ chain_id: 31337 }).expect(200);
        const s = client(cached.url);
        const a = await join(s, quotesRequestsTopic(31337), { api_key: key.secret });
        const b = await join(s, `rfq_maker:${key.bot}`, { api_key: key.secret });
        expect([a.reply.status, b.reply.status]).toEqual(['ok', 'ok']);
        expect(await metricValue(cached, 'socket_credential_lookups_total', { result: 'miss' })).toBe(1);
        expect(await metricValue(cached, 'socket_credential_lookups_total', { result: 'hit' })).toBe(1);

        const signed = await signStatement(owner.wallet, { action: 'remove_member', member: key.bot, organization: orgId, name: 'cached bot' });
        await request(r.app).delete(`/api/maker/keys/${key.id}`).set(bearer(owner.token)).send(signed).expect(200);
        await waitFor(() => a.ends.length === 1, 5000, 'the revoked channel to close');
        expect(await refusal(client(cached.url), `rfq_maker:${key.bot}`, { api_key: key.secret })).toBe('invalid api_key');
      } finally {
        await cached.close();
      }
    });
  });

  /** A wallet registered for the chain-31337 feed, which has had an event, and the join params that present it. */
  async function registeredWallet(): Promise<{ params: { token: string } }> {
    const wallet = newWallet();
    const token = await signIn(r.app, wallet);
    await request(r.app).post('/api/pubsub/freemium').set(bearer(token)).send({ chain_id: 31337 }).expect(200);
    await publisher(env).publish(topics.quotesRequests(31337), 'rfq_request', { quote_id: 'old', chain_id: 31337 });
    return { params: { token } };
  }
});
