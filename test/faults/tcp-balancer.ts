import net from 'node:net';

/**
 * A round-robin TCP load balancer on 127.0.0.1 in front of socket replicas, as clients reach a
 * replica set in production: a new connection goes to the next replica that accepts it, so a
 * client whose replica died reconnects to one that lives. Upstreams can be replaced at any time.
 */
export interface TcpBalancer {
  port: number;
  /** Replaces the replicas new connections are spread over. */
  setUpstreams(ports: number[]): void;
  close(): Promise<void>;
}

export async function startTcpBalancer(upstreams: number[]): Promise<TcpBalancer> {
  let ports = [...upstreams];
  let next = 0;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };

  /** Tries each replica once, starting at the round-robin position; null when none accepts. */
  const connectUpstream = (tried = 0): Promise<net.Socket | null> => {
    if (ports.length === 0 || tried >= ports.length) return Promise.resolve(null);
    const port = ports[next++ % ports.length];
    return new Promise((resolve) => {
      const up = net.connect(port, '127.0.0.1');
      up.once('connect', () => resolve(up));
      up.once('error', () => {
        up.destroy();
        resolve(connectUpstream(tried + 1));
      });
    });
  };

  const server = net.createServer((client) => {
    track(client);
    client.pause();
    void connectUpstream().then((up) => {
      if (!up || client.destroyed) {
        up?.destroy();
        client.destroy();
        return;
      }
      track(up);
      client.pipe(up).pipe(client);
      client.resume();
      client.on('close', () => up.destroy());
      up.on('close', () => client.destroy());
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    setUpstreams(p) {
      ports = [...p];
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
