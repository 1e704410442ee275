import { Socket, type Channel } from 'phoenix';
import { createSiweMessage } from 'viem/siwe';
import type { PrivateKeyAccount } from 'viem/accounts';
import WebSocket from 'ws';

/** What an integrator needs: a base URL, JSON over fetch, and the socket URL beside it. */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = text ? (JSON.parse(text) as unknown) : null;
    if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text}`);
    return json as T;
  }

  get socketUrl(): string {
    return `${this.baseUrl.replace(/^http/, 'ws')}/socket`;
  }

  /** Sign-In with Ethereum: fetch a nonce, sign a message carrying every field of it, log in. */
  async signIn(account: PrivateKeyAccount): Promise<string> {
    const n = await this.call<{
      nonce: string;
      domain: string;
      uri: string;
      chain_id: number;
      statement: string;
      version: '1';
      issued_at: string;
      expiration_time: string;
    }>('GET', '/api/login/nonce');
    const message = createSiweMessage({
      address: account.address,
      domain: n.domain,
      uri: n.uri,
      chainId: n.chain_id,
      statement: n.statement,
      version: n.version,
      nonce: n.nonce,
      issuedAt: new Date(n.issued_at),
      expirationTime: new Date(n.expiration_time),
    });
    const signature = await account.signMessage({ message });
    const { token } = await this.call<{ token: string }>('POST', '/api/login', { message, signature });
    return token;
  }
}

/** A connected Phoenix socket using the official client over `ws`. */
export function connectSocket(api: ApiClient): Socket {
  const socket = new Socket(api.socketUrl, { transport: WebSocket as never, heartbeatIntervalMs: 15000 });
  socket.connect();
  return socket;
}

/** Joins a topic and resolves with the channel once the join is accepted. */
export function join(socket: Socket, topic: string, params: Record<string, unknown>): Promise<Channel> {
  const channel = socket.channel(topic, params);
  return new Promise((resolve, reject) => {
    channel
      .join()
      .receive('ok', () => resolve(channel))
      .receive('error', (reason: unknown) => reject(new Error(`join ${topic} refused: ${JSON.stringify(reason)}`)))
      .receive('timeout', () => reject(new Error(`join ${topic} timed out`)));
  });
}

export const log = (who: string, msg: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`[${who}] ${msg}${Object.keys(extra).length ? ` ${JSON.stringify(extra)}` : ''}\n`);
