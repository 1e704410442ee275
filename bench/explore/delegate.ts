import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { SiweMessage } from 'siwe';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const ROOT = path.resolve(__dirname, '../..');

/**
 * A taker delegate minted with a taker API key (the Explore gate's integrator path), the way an
 * integrator gets one: the operator creates the organization, its admin signs in with SIWE and
 * issues a key, the backend mints a delegate with the key.
 */
export async function delegateToken(api: string, databaseUrl: string): Promise<string> {
  const admin = privateKeyToAccount(generatePrivateKey());
  const run = promisify(execFile);
  await run(process.execPath, ['--import', 'tsx', 'bin/ops.ts', 'org:create', '--kind', 'taker', '--name', 'Bench', '--owner', admin.address], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
  });
  const nonce = (await (await fetch(`${api}/api/login/nonce`)).json()) as Record<string, string & number>;
  const message = new SiweMessage({
    domain: nonce.domain,
    address: admin.address,
    statement: nonce.statement,
    uri: nonce.uri,
    version: nonce.version,
    chainId: nonce.chain_id,
    nonce: nonce.nonce,
    issuedAt: nonce.issued_at,
    expirationTime: nonce.expiration_time,
  }).prepareMessage();
  const post = async (p: string, body: unknown, token?: string) => {
    const res = await fetch(`${api}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  const session = (await post('/api/login', { message, signature: await admin.signMessage({ message }) })).token;
  const key = (await post('/api/taker/keys', { name: 'bench' }, session)).secret;
  return (await post('/api/taker/delegate', { address: privateKeyToAccount(generatePrivateKey()).address, expires_in: 3600 }, key)).token;
}
