import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { subscribeNewHeads } from '../../../indexer/rpc/new-heads';
import { createLogger } from '../../../shared/platform/logging';
import { Metrics } from '../../../shared/platform/metrics';

/** A node's ws endpoint that confirms `eth_subscribe` only after `confirmAfterMs`, as a busy node may. */
async function slowNode(confirmAfterMs: number) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  let subscribes = 0;
  wss.on('connection', (ws) => {
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString()) as { id: number; method: string };
      if (msg.method !== 'eth_subscribe') return;
      subscribes++;
      setTimeout(() => ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: '0x1' })), confirmAfterMs);
    });
  });
  /** Sends a newHeads notification (head `n`) to every subscriber; resolves once the frames are written. */
  const announce = (n = 2) =>
    Promise.all(
      [...wss.clients].map(
        (c) =>
          new Promise<void>((r) =>
            c.send(
              JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0x1', result: { number: `0x${n.toString(16)}` } } }),
              () => r(),
            ),
          ),
      ),
    );
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    announce,
    /** `eth_subscribe` requests received so far. */
    subscribes: () => subscribes,
    close: () => new Promise<void>((r) => wss.close(() => r())),
  };
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

  it('replaces a subscription that stays open but stops announcing, and does not mistake a quiet chain for it', async () => {
    const node = await slowNode(0);
    const metrics = new Metrics(false);
    const heads = subscribeNewHeads(node.url, logger, { silenceMs: 300, backoffMs: 10, backoffMaxMs: 50, metrics, chainId: 7 });
    const warn = jest.spyOn(logger, 'warn');
    try {
      await heads.wait(600_000); // subscribed
      // A quiet chain: longer than silenceMs without a head, polled at 5 (mined before the
      // subscription, so never due on it) all along. Replacing is synchronous in observedHead,
      // so each check right after it is the decision itself, not a wait for something to happen.
      const quietFrom = Date.now();
      while (Date.now() - quietFrom < 900) {
        heads.observedHead(5);
        expect(heads.subscribed).toBe(true);
        await new Promise((r) => setTimeout(r, 50));
      }
      // Block 6 is announced; block 7 is polled before its notification arrives: not silence either.
      let woken = heads.wait(600_000);
      await node.announce(6);
      await woken;
      heads.observedHead(7);
      expect(heads.subscribed).toBe(true);
      woken = heads.wait(600_000);
      await node.announce(7);
      await woken;
      heads.observedHead(7);

      // Block 8 is never announced: the socket stays open and silent while the tailer polls it.
      await until('a second subscription', () => {
        heads.observedHead(8);
        return node.subscribes() >= 2;
      });
      const silent = (await metrics.registry.getSingleMetric('indexer_ws_silent_total')!.get()).values;
      expect(silent).toEqual([expect.objectContaining({ labels: { chain_id: '7' }, value: 1 })]);
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({ url: node.url }),
        expect.stringMatching(/^newHeads subscription silent for \d+ ms; replacing it$/),
      );
      await until('subscribed again', () => heads.subscribed);
    } finally {
      warn.mockRestore();
      heads.close();
      await node.close();
    }
  });
});

/** Polls `check` every 20 ms until it holds; fails after `timeoutMs` (generous: a busy machine is slow, never a failure). */
async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
