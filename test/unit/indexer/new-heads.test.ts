import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { subscribeNewHeads } from '../../../indexer/rpc/new-heads';
import { createLogger } from '../../../shared/platform/logging';

/** A node's ws endpoint that confirms `eth_subscribe` only after `confirmAfterMs`, as a busy node may. */
async function slowNode(confirmAfterMs: number) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  wss.on('connection', (ws) => {
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString()) as { id: number; method: string };
      if (msg.method === 'eth_subscribe') setTimeout(() => ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: '0x1' })), confirmAfterMs);
    });
  });
  /** Sends a newHeads notification to every subscriber; resolves once the frames are written. */
  const announce = () =>
    Promise.all(
      [...wss.clients].map(
        (c) =>
          new Promise<void>((r) =>
            c.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0x1', result: { number: '0x2' } } }), () => r()),
          ),
      ),
    );
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, announce, close: () => new Promise<void>((r) => wss.close(() => r())) };
}

describe('newHeads signal', () => {
  const logger = createLogger({ level: 'silent' });

  it('wakes a waiting tailer when the subscription takes: heads announced before it were never heard', async () => {
    const node = await slowNode(150);
    const heads = subscribeNewHeads(node.url, logger);
    try {
      // a ten-minute poll interval: only the subscription taking can end this wait within the test
      await heads.wait(600_000);
      expect(heads.subscribed).toBe(true);
    } finally {
      heads.close();
      await node.close();
    }
  });

  it('keeps a head announced while the tailer is busy: the next wait returns at once instead of sleeping through it', async () => {
    const node = await slowNode(0);
    const heads = subscribeNewHeads(node.url, logger);
    try {
      await heads.wait(600_000); // subscribed
      // Nobody waits now (the tailer is indexing the previous head) when the next one is announced.
      await node.announce();
      // Let the frame arrive before anyone waits. Should it come later on a slow machine, it
      // wakes the wait below the ordinary way: the test then passes without proving the keep.
      await new Promise((r) => setTimeout(r, 100));
      // A ten-minute wait: only the kept announcement can end it within the test's timeout.
      await heads.wait(600_000);
      // Kept once: the wait after it sleeps again (ended here by close()).
      const next = heads.wait(600_000).then(() => 'woken');
      const raced = await Promise.race([next, new Promise((r) => setTimeout(() => r('still waiting'), 200))]);
      expect(raced).toBe('still waiting');
    } finally {
      heads.close();
      await node.close();
    }
  });
});
