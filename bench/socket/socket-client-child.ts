import type WebSocket from 'ws';
import { HeartbeatPacer, joinAll } from './phoenix-clients';

/**
 * One of the socket bench's client processes. A replica at 100,000 connections needs more
 * client sockets than one process may open (and more than one source address has ephemeral
 * ports for), so the parent splits them: each child opens its share from its own loopback
 * address (127.0.0.2, 127.0.0.3, ...: all of 127/8 is local on Linux) and holds them.
 *
 * IPC: `{type: 'join', url, topics, localAddress, batch}` -> `{type: 'joined', count}`;
 * `{type: 'heartbeats', periodMs}` starts them, `{type: 'heartbeat-count'}` -> `{type:
 * 'heartbeat-count', sent, replies}` (and stops them); `{type: 'stop'}` closes everything.
 */
interface JoinOrder {
  type: 'join';
  url: string;
  topics: string[];
  localAddress: string;
  batch: number;
}

let sockets: WebSocket[] = [];
let pacer: HeartbeatPacer | null = null;

process.on('message', (msg: { type: string } & Partial<JoinOrder> & { periodMs?: number }) => {
  if (msg.type === 'join') {
    const order = msg as JoinOrder;
    joinAll(order.url, order.topics, order.batch, order.localAddress).then(
      (joined) => {
        sockets = joined;
        process.send!({ type: 'joined', count: joined.length });
      },
      (err: unknown) => {
        process.send!({ type: 'failed', error: (err as Error).message });
      },
    );
  } else if (msg.type === 'heartbeats') {
    pacer ??= new HeartbeatPacer(sockets);
    pacer.start(msg.periodMs!);
  } else if (msg.type === 'heartbeat-count') {
    pacer?.stop();
    process.send!({ type: 'heartbeat-count', sent: pacer?.sent ?? 0, replies: pacer?.replies ?? 0 });
  } else if (msg.type === 'stop') {
    pacer?.stop();
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  }
});
// the parent going away (its deadline, a crash) must not leave this process holding sockets
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'ready' });
