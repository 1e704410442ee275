import { randomBytes } from 'node:crypto';
import { zeroAddress } from 'viem';
import { createDataSource } from '../../shared/entities';
import { NetworksService } from '../../shared/networks';
import { benchPrefix } from '../support/bench-cleanup';
import { benchDatabase } from '../support/bench-db';
import { spawnServer } from '../support/spawn-server';
import { BENCH_WRITE_LIMITS } from '../support/bench-limits';

/** The pair (and mothership) the quote benchmarks register on chain 31337. */
export const BENCH_PAIR = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';

/** The body every quote benchmark sends: a three-leg butterfly expiring in a day. */
export function butterflyBody(): Record<string, unknown> {
  const expiry = Math.floor(Date.now() / 1000) + 86400;
  const leg = (type: string, structure: number, strike: string, amount: string) => ({
    pair6909_contract: BENCH_PAIR,
    option_type: type,
    structure,
    start_exercise_timestamp: 0,
    expiry_timestamp: expiry,
    strike_wad: strike,
    amount,
  });
  return {
    chain_id: 31337,
    taker_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    polarity: 'b_is_buy',
    referrer: zeroAddress,
    expires_in: 300,
    intents: [
      leg('call', 0, '2500000000000000000000', '1000000000000000000'),
      leg('call', 1, '3000000000000000000000', '2000000000000000000'),
      leg('call', 0, '3500000000000000000000', '1000000000000000000'),
    ],
  };
}

/** A one-leg call quote expiring in a day, from `takerAddress` (the fan-out and offer benches' body). */
export function oneLegQuoteBody(takerAddress: string): Record<string, unknown> {
  return {
    chain_id: 31337,
    taker_address: takerAddress,
    polarity: 'b_is_buy',
    expires_in: 300,
    intents: [
      {
        pair6909_contract: BENCH_PAIR,
        option_type: 'call',
        structure: 0,
        start_exercise_timestamp: 0,
        expiry_timestamp: Math.floor(Date.now() / 1000) + 86400,
        strike_wad: '3000000000000000000000',
        amount: '1000000000000000000',
      },
    ],
  };
}

/** A migrated throwaway database with the bench network registered; `drop()` removes it. */
export async function quoteBenchDatabase(tag: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const db = await benchDatabase(tag);
  const ds = createDataSource({ url: db.url, poolSize: 1 });
  await ds.initialize();
  await new NetworksService(ds).upsertNetwork({
    chain_id: 31337,
    name: 'Bench',
    rpc_urls: ['http://127.0.0.1:8545'],
    contracts: { mothership: BENCH_PAIR, opshuns_core: BENCH_PAIR },
    tokens: [],
  });
  await ds.destroy();
  return db;
}

/** One API process (production mode, no devchain) on that database. */
export function spawnQuoteApi(databaseUrl: string, extraEnv: Record<string, string> = {}) {
  return spawnServer(
    'bin/main.ts',
    {
      ROLES: 'api',
      PORT: '0',
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: benchPrefix('quote'),
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      DEVCHAIN: 'off',
      NODE_ENV: 'production',
      DATABASE_POOL_SIZE: '20',
      JWT_SECRET: randomBytes(32).toString('hex'),
      ...BENCH_WRITE_LIMITS,
      ...extraEnv,
    },
    'api listening',
  );
}
