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
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => wss.close(() => r())) };
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
});
