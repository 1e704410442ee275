import type { Socket } from 'phoenix';
import { rfqStreamTopic, topics } from '../../../shared/events';
import { hashStreamToken, StreamTokens } from '../../../shared/platform/stream-tokens';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { disconnect, join, phoenixSocket, publisher, RawClient, refusal, startReplica, waitFor, type Replica } from './socket-harness';

describe('socket tier: the Phoenix channels protocol', () => {
  let env: TestEnv;
  let replica: Replica;
  let tokens: StreamTokens;
  const sockets: Socket[] = [];
  const raws: RawClient[] = [];

  /** A fresh rfq stream: its client topic and its publishable ref. */
  async function stream() {
    const token = await tokens.mint('rfq', 300, {});
    return { topic: rfqStreamTopic(token), ref: topics.rfqStream(hashStreamToken(token)) };
  }
  const client = (opts = {}) => {
    const s = phoenixSocket(replica.url, opts);
    sockets.push(s);
    return s;
  };
  const raw = async (query = 'vsn=2.0.0', protocols?: string[]) => {
    const r = await RawClient.open(`${replica.wsUrl}?${query}`, protocols);
    raws.push(r);
    return r;
  };

  beforeAll(async () => {
    env = await createTestEnv({ SOCKET_MAX_CHANNELS: '3', SOCKET_IDLE_TIMEOUT_MS: '1000', SOCKET_SWEEP_INTERVAL_MS: '100', SOCKET_MAX_BAD_FRAMES: '20' });
    replica = await startReplica(env);
    tokens = new StreamTokens(env.redis, env.config.REDIS_PREFIX);
  });
  async function badFrames(): Promise<number> {
    const m = await replica.metrics.registry.getSingleMetric('socket_bad_frames_total')!.get();
    return m.values.reduce((sum, v) => sum + v.value, 0);
  }

  afterEach(async () => {
    await Promise.all(sockets.splice(0).map(disconnect));
    for (const r of raws.splice(0)) r.close();
  });
  afterAll(async () => {
    await replica.close();
    await env.close();
  });

  it('joins, receives {seq, ...payload} in order, leaves, and receives nothing after leaving', async () => {
    const s = client();
    const { topic, ref } = await stream();
    const j = await join(s, topic);
    expect(j.reply).toEqual({ status: 'ok', response: { seq: 0, recovered: true } });
    const pub = publisher(env);
    await pub.publish(ref, 'rfq_request', { quote_id: 'q1', chain_id: 31337 });
    await pub.publish(ref, 'rfq_offer', { quote_id: 'q1', price: '12' });
    await waitFor(() => j.events.length === 2);
    expect(j.events).toEqual([
      { event: 'rfq_request', payload: { seq: 1, quote_id: 'q1', chain_id: 31337 } },
      { event: 'rfq_offer', payload: { seq: 2, quote_id: 'q1', price: '12' } },
    ]);

    const left = await new Promise((resolve) => j.channel.leave().receive('ok', resolve));
    expect(left).toEqual({});
    const sentinelStream = await stream();
    const sentinel = await join(s, sentinelStream.topic);
    await pub.publish(ref, 'rfq_result', { quote_id: 'q1' });
    await pub.publish(sentinelStream.ref, 'rfq_result', { quote_id: 'sentinel' });
    await waitFor(() => sentinel.events.length === 1, 5000, 'the sentinel');
    expect(j.events).toHaveLength(2);
  });

  it('answers heartbeats on the phoenix topic, with the ref and a null join_ref', async () => {
    const s = client();
    const rtt = await new Promise<number>((resolve) => {
      const tryPing = () => (s.ping(resolve) ? undefined : setTimeout(tryPing, 10));
      tryPing();
    });
    expect(rtt).toBeGreaterThanOrEqual(0);

    const r = await raw();
    r.send([null, '7', 'phoenix', 'heartbeat', {}]);
    expect(await r.next((m) => m[1] === '7')).toEqual([null, '7', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
  });

  it('answers an unknown topic and a push to an unjoined topic with "unmatched topic"', async () => {
    const s = client();
    expect(await refusal(s, 'nonsense:1')).toBe('unmatched topic');
    expect(await refusal(s, 'rfq_stream:short')).toBe('unmatched topic');

    const r = await raw();
    r.send(['1', '2', 'rfq_stream:AAAAAAAAAAAAAAAAAAAAAAAA', 'anything', {}]);
    expect(await r.next((m) => m[1] === '2')).toEqual([
      null,
      '2',
      'rfq_stream:AAAAAAAAAAAAAAAAAAAAAAAA',
      'phx_reply',
      { status: 'error', response: { reason: 'unmatched topic' } },
    ]);
  });

  it('refuses a join beyond the per-connection channel cap', async () => {
    const s = client();
    for (let i = 0; i < 3; i++) expect((await join(s, (await stream()).topic)).reply.status).toBe('ok');
    expect(await refusal(s, (await stream()).topic)).toBe('too many channels joined');
  });

  it('refuses a join payload that is not what it should be', async () => {
    const s = client();
    const reason = await refusal(s, (await stream()).topic, { last_seq: -1 });
    expect(reason).toMatch(/^invalid join payload: last_seq/);
  });

  it('speaks vsn 1.0.0 objects, and refuses an unknown vsn with 403', async () => {
    const { topic, ref } = await stream();
    const r = await raw('vsn=1.0.0');
    r.send({ topic, event: 'phx_join', payload: {}, ref: '1' });
    expect(await r.next((m) => m.ref === '1')).toEqual({
      topic,
      event: 'phx_reply',
      payload: { status: 'ok', response: { seq: 0, recovered: true } },
      ref: '1',
    });
    await publisher(env).publish(ref, 'rfq_offer', { quote_id: 'q' });
    expect(await r.next((m) => m.event === 'rfq_offer')).toEqual({ topic, event: 'rfq_offer', payload: { seq: 1, quote_id: 'q' }, ref: null });

    await expect(RawClient.open(`${replica.wsUrl}?vsn=3.0.0`)).rejects.toThrow(/403/);
    await expect(RawClient.open(`ws://127.0.0.1:${replica.port}/elsewhere`)).rejects.toThrow(/404/);
  });

  it('drops messages carrying a stale join_ref, answers current ones', async () => {
    const { topic } = await stream();
    const r = await raw();
    r.send(['1', '1', topic, 'phx_join', {}]);
    await r.next((m) => m[1] === '1');
    r.send(['9', '2', topic, 'ping', {}]);
    r.send(['1', '3', topic, 'ping', {}]);
    const answer = await r.next((m) => m[1] === '3');
    expect(answer).toEqual(['1', '3', topic, 'phx_reply', { status: 'error', response: { reason: 'unsupported event ping: this topic only pushes' } }]);
    expect(r.messages.find((m: any) => m[1] === '2')).toBeUndefined();
    // a leave with an old join_ref is dropped too: the channel stays
    r.send(['9', '4', topic, 'phx_leave', {}]);
    r.send(['1', '5', topic, 'ping', {}]);
    await r.next((m) => m[1] === '5');
    expect(r.messages.find((m: any) => m[1] === '4')).toBeUndefined();
  });

  it('closes the existing channel on a duplicate join (phx_close to the old join_ref)', async () => {
    const { topic } = await stream();
    const r = await raw();
    r.send(['1', '1', topic, 'phx_join', {}]);
    await r.next((m) => m[1] === '1');
    r.send(['2', '2', topic, 'phx_join', {}]);
    expect(await r.next((m) => m[3] === 'phx_close')).toEqual(['1', '1', topic, 'phx_close', {}]);
    expect((await r.next((m) => m[1] === '2'))[4].status).toBe('ok');
  });

  it('closes a connection that sends nothing for the idle timeout; heartbeats keep one open', async () => {
    const idle = await raw();
    const s = client({ heartbeatIntervalMs: 200 });
    const j = await join(s, (await stream()).topic);
    expect(j.reply.status).toBe('ok');
    expect(await idle.closed).toEqual({ code: 1000, reason: 'idle timeout: no heartbeat' });
    // outlive a whole idle timeout counted in answered heartbeats (200 ms apart, timeout 1000 ms), not in wall time
    let beats = 0;
    s.onMessage((m) => {
      const { topic, event } = m as { topic: string; event: string };
      if (topic === 'phoenix' && event === 'phx_reply') beats++;
    });
    await waitFor(() => beats >= 7, 10_000, 'seven answered heartbeats');
    expect(s.isConnected()).toBe(true);
  });

  it('refuses binary pushes with an error reply and drops malformed binary frames', async () => {
    const { topic } = await stream();
    const r = await raw();
    const parts = ['1', '5', topic, 'phx_join'].map((p) => Buffer.from(p));
    r.send(Buffer.concat([Buffer.from([0, ...parts.map((p) => p.length)]), ...parts, Buffer.from([1, 2, 3])]));
    expect(await r.next((m) => Array.isArray(m) && m[1] === '5')).toEqual([
      '1',
      '5',
      topic,
      'phx_reply',
      { status: 'error', response: { reason: 'binary payloads are not supported' } },
    ]);
    r.send(Buffer.from([0, 200, 1, 1, 1, 65]));
    r.send(Buffer.from([7]));
    r.send([null, '6', 'phoenix', 'heartbeat', {}]);
    await r.next((m) => Array.isArray(m) && m[1] === '6');
    const bad = await replica.metrics.registry.getSingleMetric('socket_bad_frames_total')!.get();
    expect(bad.values.find((v) => v.labels.reason === 'invalid_binary_frame')?.value).toBeGreaterThanOrEqual(2);
  });

  it('drops a malformed frame and keeps serving the connection; too many close it with 1008', async () => {
    const r = await raw();
    for (const junk of ['{', 'null', '[1,2,3]', '["1","2",5,"e",{}]', JSON.stringify(['1', '2', 'x'.repeat(300), 'e', {}])]) r.send(junk);
    r.send([null, 'hb', 'phoenix', 'heartbeat', {}]);
    expect((await r.next((m) => m[1] === 'hb'))[4]).toEqual({ status: 'ok', response: {} });
    for (let i = 0; i < 20; i++) r.send('garbage');
    expect(await r.closed).toEqual({ code: 1008, reason: 'too many malformed messages' });
  });

  it('closes a connection that sends a frame over the size limit with 1009', async () => {
    const r = await raw();
    r.send(JSON.stringify([null, '1', 'phoenix', 'heartbeat', { pad: 'x'.repeat(70 * 1024) }]));
    expect((await r.closed).code).toBe(1009);
  });

  it('keeps serving after 1,000 garbage frames: every connection still answers, new ones join', async () => {
    const badBefore = await badFrames();
    // 50 connections x 20 frames: each stays just under its limit, so all 1,000 are processed
    const rs = await Promise.all(Array.from({ length: 50 }, () => raw()));
    for (const r of rs) for (let i = 0; i < 20; i++) r.send(i % 2 ? `\u0000garbage${i}` : Buffer.from([i, 255, 0, 1]));
    for (const r of rs) r.send([null, 'alive', 'phoenix', 'heartbeat', {}]);
    await Promise.all(rs.map((r) => r.next((m) => Array.isArray(m) && m[1] === 'alive')));
    expect((await badFrames()) - badBefore).toBe(1000);

    const s = client();
    const { topic, ref } = await stream();
    const j = await join(s, topic);
    await publisher(env).publish(ref, 'rfq_request', { quote_id: 'after', chain_id: 1 });
    await waitFor(() => j.events.length === 1);
    expect(j.events[0].payload).toEqual({ seq: 1, quote_id: 'after', chain_id: 1 });
  });

  it('accepts the phoenix.js authToken subprotocol', async () => {
    const s = client({ authToken: 'abc' });
    const j = await join(s, (await stream()).topic);
    expect(j.reply.status).toBe('ok');
  });
});
