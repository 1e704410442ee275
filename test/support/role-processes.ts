import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RfqClient } from '../../client/src';
import { FeedRecorder } from '../faults/feed-recorder';
import { randomAddress } from './fixtures';
import { ops } from './ops';
import { intents, quoteBody, STRATEGY_ROWS } from './quotes';
import type { TestEnv } from './test-env';

/** The four roles as production runs them, one process each, and the log line that says each is up. */
export const ROLE_PROCESSES = [
  { roles: 'api', ready: { listenMsg: 'api listening' } },
  { roles: 'socket', ready: { listenMsg: 'socket attached' } },
  { roles: 'workers', ready: { readyMsg: 'started' } },
  { roles: 'indexer', ready: { readyMsg: 'started' } },
] as const;

/** A new maker organization's owner, signed in, registered premium on `chainId`, joined to its request feed on `socketUrl`. */
export async function premiumMakerFeed(env: TestEnv, apiUrl: string, socketUrl: string, chainId: number, name: string): Promise<FeedRecorder> {
  const client = new RfqClient(apiUrl);
  const maker = privateKeyToAccount(generatePrivateKey());
  const created = await ops(env, 'org:create', '--kind', 'maker', '--name', name, '--owner', maker.address);
  if (created.code !== 0) throw new Error(`org:create exited with ${created.code}: ${created.stderr}`);
  const token = (await client.signIn(maker)).token;
  await client.call('POST', '/api/pubsub/premium', { chain_id: chainId }, { authorization: `Bearer ${token}` });
  return FeedRecorder.open(`${socketUrl.replace(/^http/, 'ws')}/socket`, `quotes:${chainId}:requests`, { token });
}

/** A standard quote created by a random taker (with a random referrer) on `pair`; the answer's status and quote. */
export async function createQuote(
  apiUrl: string,
  pair: `0x${string}`,
): Promise<{ status: number; quote: { id: string; taker_salt: string }; taker: string; referrer: string }> {
  const taker = randomAddress();
  const referrer = randomAddress();
  const legs = STRATEGY_ROWS[0].legs;
  const res = await fetch(`${apiUrl}/api/quote`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(quoteBody(taker, legs, { referrer, intents: intents(legs, { pair }) })),
  });
  const body = (await res.json()) as { quote: { id: string; taker_salt: string } };
  return { status: res.status, quote: body.quote, taker, referrer };
}
