import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { ApiContext } from '../../api/context';
import { closeServer, listen } from '../../api/server';
import { Lifecycle } from '../../shared/platform/lifecycle';
import { NetworksService } from '../../shared/networks';
import { networkFile, randomAddress } from '../support/fixtures';
import { signedOffer } from '../support/offers';
import { buildApp, request } from '../support/http';
import { FIXTURE_PAIR, quoteBody, STRATEGY_ROWS } from '../support/quotes';
import { indexFixturePair, orderBody } from '../support/orders';
import { createTestEnv, testConfig, type TestEnv } from '../support/test-env';
import type { PrivateKeyAccount } from 'viem/accounts';
import { bearer, newWallet, signedKeyAdd, signIn, signStatement } from '../support/wallets';

/** Credentials and ids the fuzzer can put in requests, so generated requests get past auth and lookups. */
export interface FuzzMaterial {
  /** Bearer tokens by who holds them. */
  bearers: Record<'maker_admin' | 'wallet' | 'taker_admin' | 'maker_key' | 'taker_key' | 'delegate', string>;
  quoteId: string;
  streamToken: string;
  /** Ids of keys the fuzzer may remove; the keys it authenticates with are not among them. */
  spareTakerKeyId: string;
  spareMakerKeyId: string;
  orgIds: string[];
  addresses: `0x${string}`[];
  /** A body POST /api/quote accepts. */
  quote: Record<string, unknown>;
  /** A body POST /api/orders accepts (for the `wallet` bearer's wallet), and bodies past ORDER_MAX_HORIZON_SECONDS. */
  order: Record<string, unknown>;
  farOrders: Record<string, unknown>[];
  /** An order of the `wallet` bearer's wallet, recorded with its session. */
  orderId: string;
  /** An indexed CLOB (the Explore CLOB routes answer it) and an indexed loan's public id. */
  pair: `0x${string}`;
  loanId: string;
  /**
   * Bodies that pass every check once, signed by the right wallets: mutations of them reach the
   * deepest checks (signature recovery, statement fields, replays).
   */
  signed: {
    offer: Record<string, unknown>;
    addMakerKey: Record<string, unknown>;
    removeMakerKey: Record<string, unknown>;
    delegateAsAdmin: Record<string, unknown>;
  };
}

/**
 * What the fuzz compares around each request: rows per table, and this test's Redis keys, each
 * with the moment (ms since the epoch) its TTL runs out (Infinity without one), so that a key
 * that expired on its own between two snapshots is not taken for a delete. `takenAt` is when the
 * snapshot ended.
 */
export interface WriteSnapshot {
  rows: Record<string, number>;
  redisKeys: Map<string, number>;
  takenAt: number;
}

export interface FuzzWorld {
  env: TestEnv;
  app: Express;
  ctx: ApiContext;
  baseUrl: string;
  material: FuzzMaterial;
  snapshot(): Promise<WriteSnapshot>;
  close(): Promise<void>;
}

/**
 * Redis logical database of the fuzz run: counting this test's keys is a SCAN, and in the shared
 * database 0 that walks every key of every test running on the machine.
 */
const FUZZ_REDIS_DB = 13;

/**
 * Rate-limit counters count every attempt, refused ones included: that is their job, so a 4xx may
 * create one. Every other key must stay put.
 */
const countsAsWrite = (key: string, prefix: string) => !key.startsWith(`${prefix}rl:`);

export async function createFuzzWorld(): Promise<FuzzWorld> {
  const redisUrl = new URL(testConfig().REDIS_URL);
  redisUrl.pathname = `/${FUZZ_REDIS_DB}`;
  const env = await createTestEnv({
    REDIS_URL: redisUrl.toString(),
    // The fuzz is after wrong answers, not rate limits: keep the limits out of its way.
    LOGIN_RATE_LIMIT: '100000',
    NONCE_RATE_LIMIT: '100000',
    EXPLORE_RATE_LIMIT: '1000000',
    EXPLORE_RATE_LIMIT_PER_IP: '1000000',
    QUOTE_RATE_LIMIT_PER_IP: '10000000',
    QUOTE_RATE_LIMIT_PER_CREDENTIAL: '10000000',
    WRITE_RATE_LIMIT_PER_IP: '10000000',
    WRITE_RATE_LIMIT_PER_CREDENTIAL: '10000000',
    INDEXER_STATUS_STALE_MS: '3600000',
  });
  const { app, ctx } = buildApp(env);
  await new NetworksService(env.db).upsertNetwork(networkFile(31337));
  // A healthy indexer, so the indexer routes answer 200 instead of their designed 503.
  await env.db.query(
    `INSERT INTO indexer_status (chain_id, state, head, head_timestamp, cursor, cursor_timestamp, rpc_ok, last_synced_at, heartbeat_at)
     VALUES (31337, 'realtime', 100, 1700000000, 100, 1700000000, true, now(), now())`,
  );

  const makerAdmin = newWallet();
  const takerAdmin = newWallet();
  const wallet = newWallet();
  const makerOrg = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Fuzz Makers', owner: makerAdmin.address });
  const takerOrg = await ctx.services.identity.orgs.create({ kind: 'taker', name: 'Fuzz Takers', owner: takerAdmin.address });
  const [makerToken, takerToken, walletToken] = [await signIn(app, makerAdmin), await signIn(app, takerAdmin), await signIn(app, wallet)];

  const addKey = async (wallet: PrivateKeyAccount, name: string) => {
    const body = await signedKeyAdd(makerAdmin, wallet, { organization: makerOrg.id, name });
    return (await request(app).post('/api/maker/keys').set(bearer(makerToken)).send(body).expect(201)).body;
  };
  const botWallet = newWallet();
  const bot = botWallet.address;
  const makerKey = await addKey(botWallet, 'fuzz bot');
  const spareWallet = newWallet();
  const spareBot = spareWallet.address;
  const spareMakerKey = await addKey(spareWallet, 'spare bot');
  const nextWallet = newWallet();
  const takerKey = (await request(app).post('/api/taker/keys').set(bearer(takerToken)).send({ name: 'fuzz' }).expect(201)).body;
  const spare = (await request(app).post('/api/taker/keys').set(bearer(takerToken)).send({ name: 'spare' }).expect(201)).body;
  const delegate = (await request(app).post('/api/taker/delegate').set(bearer(takerKey.secret)).send({ address: wallet.address, expires_in: 3600 }).expect(200))
    .body;
  const quote = quoteBody(randomAddress(), STRATEGY_ROWS[7].legs);
  const created = (await request(app).post('/api/quote').send(quote).expect(201)).body;
  const fixture = networkFile(31337);
  const offer = await signedOffer(created.quote, botWallet, {
    mothership: fixture.contracts.mothership as `0x${string}`,
    premiumToken: fixture.tokens[0].address as `0x${string}`,
  });
  const delegateUser = newWallet().address;
  await indexFixturePair(env.db);
  // A loan as the indexer would have written it, so the loan routes reach their cursors and filters.
  await env.db.query(
    `INSERT INTO indexer_loans (chain_id, loan_id, market, borrower, lender, collateral_token, collateral_amount, debt_token, principal,
       principal_outstanding, rate_bps, threshold_bps, maturity, state, health_wad, opened_block, opened_block_hash, opened_log_index, opened_at,
       tx_hash, last_block, last_log_index)
     VALUES (31337, 7, $1, $2, $2, $1, 1, $1, 1, 1, 500, 8000, 2000000000, 'active', 1000000000000000000, 1, $3, 0, 1700000000, $3, 1, 0)`,
    [FIXTURE_PAIR, wallet.address, `0x${'00'.repeat(32)}`],
  );
  const order = orderBody(wallet.address);
  const orderId = (await request(app).post('/api/orders').set(bearer(walletToken)).send(orderBody(wallet.address)).expect(201)).body.id as string;
  // Past the horizon (a year by default): each is a 400 naming its field. 1099511627775 is the largest uint40 (year 36812).
  const far = (edit: (d: typeof order.data) => typeof order.data) => ({ ...order, data: edit(order.data) });
  const farOrders = [
    far((d) => ({ ...d, intentExpiry: 1099511627775, pairKey: { ...d.pairKey, expiryTimestamp: 1099511627775 } })),
    far((d) => ({
      ...d,
      intentExpiry: d.intentExpiry + 2 * 366 * 86400,
      pairKey: { ...d.pairKey, expiryTimestamp: d.pairKey.expiryTimestamp + 2 * 366 * 86400 },
    })),
    far((d) => ({ ...d, pairKey: { ...d.pairKey, expiryTimestamp: d.pairKey.expiryTimestamp + 2 * 366 * 86400 } })),
    far((d) => ({ ...d, intentStartTime: d.intentStartTime + 2 * 366 * 86400 })),
  ];

  // The server the api role listens with (api/server.ts): its timeouts, and its answer to a request Node's parser refuses.
  const server = await listen({ app, host: '127.0.0.1', port: 0, logger: env.logger, lifecycle: new Lifecycle(env.logger, 10_000), name: 'fuzz api' });
  const { port } = server.address() as AddressInfo;

  const tables: string[] = (
    await env.db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`)
  ).map((r: { table_name: string }) => r.table_name);
  const countSql = `SELECT json_build_object(${tables.map((t) => `'${t}', (SELECT count(*) FROM "${t}")`).join(', ')}) AS rows`;
  const prefix = env.config.REDIS_PREFIX;
  // Keys made above with a TTL (sign-in nonces, the quote's stream token) may run out during a
  // slow run; this one runs out during every run, so the snapshot's handling of a key that expires
  // on its own is exercised whatever the machine's speed.
  await env.redis.set(`${prefix}fuzz:expires-during-run`, '1', 'PX', 3000);

  return {
    env,
    app,
    ctx,
    baseUrl: `http://127.0.0.1:${port}`,
    material: {
      bearers: {
        maker_admin: makerToken,
        wallet: walletToken,
        taker_admin: takerToken,
        maker_key: makerKey.secret,
        taker_key: takerKey.secret,
        delegate: delegate.token,
      },
      quoteId: created.quote.id,
      streamToken: created.stream_token,
      spareTakerKeyId: spare.id,
      spareMakerKeyId: spareMakerKey.id,
      orgIds: [makerOrg.id, takerOrg.id],
      addresses: [makerAdmin.address, takerAdmin.address, wallet.address, bot],
      quote,
      order,
      farOrders,
      orderId,
      pair: FIXTURE_PAIR as `0x${string}`,
      loanId: '31337-7',
      signed: {
        offer,
        addMakerKey: await signedKeyAdd(makerAdmin, nextWallet, { organization: makerOrg.id, name: 'next bot' }),
        removeMakerKey: await signStatement(makerAdmin, { action: 'remove_member', member: spareBot, organization: makerOrg.id, name: 'spare bot' }),
        delegateAsAdmin: {
          address: delegateUser,
          expires_in: 300,
          ...(await signStatement(takerAdmin, {
            kind: 'taker',
            action: 'mint_delegate',
            member: delegateUser,
            organization: takerOrg.id,
            name: 'Fuzz Takers',
          })),
        },
      },
    },
    async snapshot() {
      const [{ rows }] = await env.db.query(countSql);
      let cursor = '0';
      const redisKeys = new Map<string, number>();
      do {
        const [next, keys] = await env.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        const watched = keys.filter((k) => countsAsWrite(k, prefix));
        // Read before the TTLs, so each end computed from it is, if anything, early.
        const readAt = Date.now();
        const ttls = watched.length > 0 ? await watched.reduce((p, k) => p.pttl(k), env.redis.pipeline()).exec() : [];
        watched.forEach((k, i) => {
          const ms = Number(ttls?.[i]?.[1]);
          // -1: no TTL; -2: gone since the SCAN listed it (expired, so it ends now).
          redisKeys.set(k, ms === -1 ? Infinity : ms === -2 ? readAt : readAt + ms);
        });
      } while (cursor !== '0');
      return { rows, redisKeys, takenAt: Date.now() };
    },
    async close() {
      server.closeAllConnections();
      await closeServer(server);
      await env.close();
    },
  };
}
