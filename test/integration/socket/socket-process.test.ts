import { rfqStreamTopic, topics } from '../../../shared/events';
import { hashStreamToken, StreamTokens } from '../../../shared/platform/stream-tokens';
import { spawnService, type RunningService } from '../../support/spawn-service';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { disconnect, join, phoenixSocket, publisher, RawClient, waitFor } from './socket-harness';

describe('bin/main.ts with the socket role', () => {
  let env: TestEnv;
  const running: RunningService[] = [];

  const start = async (roles: string) => {
    const svc = await spawnService(
      {
        ROLES: roles,
        DATABASE_URL: env.config.DATABASE_URL,
        REDIS_URL: env.config.REDIS_URL,
        REDIS_PREFIX: env.config.REDIS_PREFIX,
        DEVCHAIN: 'off',
        // The drain's order is under test, not its speed: on a loaded machine the default 10 s for
        // every part together ran out before the HTTP server's turn (its line was 'close failed').
        SHUTDOWN_TIMEOUT_MS: '60000',
      },
      { listenMsg: 'socket attached' },
    );
    running.push(svc);
    return svc;
  };
  const stream = async () => {
    const token = await new StreamTokens(env.redis, env.config.REDIS_PREFIX).mint('rfq', 300, {});
    return { topic: rfqStreamTopic(token), ref: topics.rfqStream(hashStreamToken(token)) };
  };

  beforeAll(async () => {
    env = await createTestEnv();
  });
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop('SIGKILL')));
    await env.close();
  });

  it('ROLES=socket serves the socket, /healthz and /metrics, and drains with 1001 on SIGTERM', async () => {
    const svc = await start('socket');
    expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${svc.url}/api/networks`)).status).toBe(404);

    const s = phoenixSocket(`ws://127.0.0.1:${svc.port}/socket`, { reconnectAfterMs: () => 60_000 });
    const { topic, ref } = await stream();
    const j = await join(s, topic);
    await publisher(env).publish(ref, 'rfq_request', { quote_id: 'q', chain_id: 1 });
    await waitFor(() => j.events.length === 1);

    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    expect(metrics).toMatch(/^socket_connections 1$/m);
    expect(metrics).toMatch(/^socket_channels\{topic_kind="rfq_stream"\} 1$/m);
    expect(metrics).toMatch(/^socket_messages_out_total\{type="event"\} 1$/m);
    expect(metrics).toMatch(/^socket_replays_total\{result="recovered"\} 1$/m);

    const raw = await RawClient.open(`ws://127.0.0.1:${svc.port}/socket/websocket?vsn=2.0.0`);
    expect(await svc.stop('SIGTERM')).toBe(0);
    expect(await raw.closed).toEqual({ code: 1001, reason: 'server shutting down' });
    const closed = svc.lines.filter((l) => l.msg === 'closed').map((l) => l.part);
    expect(svc.lines.filter((l) => l.msg === 'close failed').map((l) => l.part)).toEqual([]);
    expect(closed.indexOf('socket server')).toBeGreaterThanOrEqual(0);
    expect(closed.indexOf('socket server')).toBeLessThan(closed.indexOf('socket http server'));
    await disconnect(s);
  }, 90000);

  it('ROLES=api,socket serves both on one port', async () => {
    const svc = await start('api,socket');
    expect((await fetch(`${svc.url}/api/networks`)).status).toBe(200);
    const s = phoenixSocket(`ws://127.0.0.1:${svc.port}/socket`);
    const j = await join(s, (await stream()).topic);
    expect(j.reply.status).toBe('ok');
    await disconnect(s);
    expect(await svc.stop('SIGTERM')).toBe(0);
  }, 90000);
});
