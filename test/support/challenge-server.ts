import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One siteverify call as the stand-in received it. */
export interface SiteverifyCall {
  secret: string | null;
  response: string | null;
  remoteip: string | null;
  contentType: string | undefined;
}

export interface ChallengeServer {
  /** The siteverify URL to put in CHALLENGE_VERIFY_URL. */
  url: string;
  secret: string;
  calls: SiteverifyCall[];
  /** Makes `token` verify successfully for `action`. */
  accept(token: string, action: string): void;
  /** Tokens the server never answers (the connection stays open), to exercise timeouts. */
  hang(token: string): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that answers like Cloudflare Turnstile's siteverify: form
 * fields `secret`, `response`, `remoteip`; JSON `{success, action, error-codes}`. Unknown
 * tokens and a wrong secret fail the way Turnstile fails them.
 */
export async function startChallengeServer(secret = 'test-challenge-secret'): Promise<ChallengeServer> {
  const accepted = new Map<string, string>();
  const hanging = new Set<string>();
  const calls: SiteverifyCall[] = [];

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString('utf8')));
    req.on('end', () => {
      const form = new URLSearchParams(raw);
      const call = { secret: form.get('secret'), response: form.get('response'), remoteip: form.get('remoteip'), contentType: req.headers['content-type'] };
      calls.push(call);
      if (call.response && hanging.has(call.response)) return;
      const reply = (body: Record<string, unknown>) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/siteverify') {
        res.writeHead(404).end();
        return;
      }
      if (call.secret !== secret) return reply({ success: false, 'error-codes': ['invalid-input-secret'] });
      const action = call.response ? accepted.get(call.response) : undefined;
      if (action === undefined) return reply({ success: false, 'error-codes': ['invalid-input-response'] });
      reply({ success: true, action, hostname: 'app.example', challenge_ts: new Date().toISOString(), 'error-codes': [] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/siteverify`,
    secret,
    calls,
    accept: (token, action) => void accepted.set(token, action),
    hang: (token) => void hanging.add(token),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
