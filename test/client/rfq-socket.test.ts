import { RfqSocket, type RfqOfferEvent, type TakerEvents } from '../../client/src';
import { rfqStreamTopic, topics, type TopicRef } from '../../shared/events';
import { hashStreamToken, StreamTokens } from '../../shared/platform/stream-tokens';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { publisher, startReplica, waitFor, type Replica } from '../integration/socket/socket-harness';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The client's socket helper against a real socket replica on 127.0.0.1 (real Redis). */
describe('client: RfqSocket joins with last_seq and resumes after reconnects', () => {
  let env: TestEnv;
  let replica: Replica;
  const sockets: RfqSocket[] = [];

  /** A socket that retries quickly, so the tests wait on reconnects rather than on back-off. */
  function socket(onMessage?: (topic: string, event: string, payload: unknown) => void): RfqSocket {
    const s = new RfqSocket({ url: replica.url, reconnectAfterMs: () => 50, rejoinAfterMs: () => 50, timeoutMs: 5000, onMessage });
    sockets.push(s);
    return s;
  }

  async function newStream(): Promise<{ topic: string; ref: TopicRef<'rfq_stream'> }> {
    const token = await new StreamTokens(env.redis, env.config.REDIS_PREFIX).mint('rfq', 600, {});
    return { topic: rfqStreamTopic(token), ref: topics.rfqStream(hashStreamToken(token)) };
  }

  async function publishN(ref: TopicRef<'rfq_stream'>, n: number): Promise<void> {
    const pub = publisher(env);
    for (let i = 0; i < n; i++) await pub.publish(ref, 'rfq_offer', { quote_id: 'q' });
  }

  beforeAll(async () => {
    env = await createTestEnv();
    replica = await startReplica(env);
  });
  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((s) => s.disconnect()));
  });
  afterAll(async () => {
    await replica.close();
    await env.close();
  });

  it('after the server drops the connection, the rejoin resumes from the last seq: every event once, in order', async () => {
    const { topic, ref } = await newStream();
    const replies: unknown[] = [];
    const s = socket((t, event, payload) => {
      if (t === topic && event === 'phx_reply') replies.push((payload as { response: unknown }).response);
    });
    const got: number[] = [];
    const sub = await s.subscribe<TakerEvents>(topic, { on: { rfq_offer: (offer: RfqOfferEvent) => got.push(offer.seq) } });
    await publishN(ref, 3);
    await waitFor(() => got.length === 3, 5000, 'the first three offers');

    // A forced disconnect: the replica goes away with the client joined; events keep coming meanwhile.
    const port = replica.port;
    await replica.close();
    await publishN(ref, 4);
    replica = await startReplica(env, { port });

    await waitFor(() => got.length === 7, 10000, 'the four missed offers after the reconnect');
    expect(replies).toContainEqual({ seq: 3, recovered: true });
    await publishN(ref, 3);
    // The last one is the sentinel: a duplicate or a reordering would have shown before it.
    await waitFor(() => got.includes(10), 5000, 'the live offers');
    expect(got).toEqual(range(1, 10));
    expect(sub.lastSeq).toBe(10);
  });

  it('a first join with lastSeq gets only what follows it', async () => {
    const { topic, ref } = await newStream();
    await publishN(ref, 5);
    const got: number[] = [];
    await socket().subscribe<TakerEvents>(topic, { lastSeq: 2, on: { rfq_offer: (o) => got.push(o.seq) } });
    await waitFor(() => got.length === 3, 5000, 'offers 3 to 5');
    await publishN(ref, 1);
    await waitFor(() => got.length === 4, 5000, 'the live offer');
    expect(got).toEqual([3, 4, 5, 6]);
  });

  it('when history cannot cover lastSeq, onResync names the seq the subscription continues after', async () => {
    const { topic, ref } = await newStream();
    await publishN(ref, 2);
    const resynced: number[] = [];
    const got: number[] = [];
    const sub = await socket().subscribe<TakerEvents>(topic, { lastSeq: 50, on: { rfq_offer: (o) => got.push(o.seq) }, onResync: (seq) => resynced.push(seq) });
    expect(resynced).toEqual([2]);
    expect(sub.lastSeq).toBe(2);
    await publishN(ref, 1);
    await waitFor(() => got.length === 1, 5000, 'the live offer');
    expect(got).toEqual([3]);
  });

  it('a refused first join rejects with the reason and stops retrying', async () => {
    const s = socket();
    const topic = rfqStreamTopic('A'.repeat(43));
    await expect(s.subscribe<TakerEvents>(topic, { on: {} })).rejects.toThrow(`join ${topic} refused: {"reason":"invalid or expired stream token"}`);
    // The channel was left, so phoenix.js drops it instead of rejoining it every few seconds.
    const channels = () => (s.socket as unknown as { channels: { topic: string }[] }).channels;
    await waitFor(() => !channels().some((c) => c.topic === topic), 5000, 'the refused channel to be dropped');
  });
});
