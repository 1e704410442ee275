import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { ApiContext } from '../../api/context';
import { randomUUID } from 'node:crypto';
import { closeServer, listen } from '../../api/server';
import { Lifecycle } from '../../shared/platform/lifecycle';
import { NetworksService } from '../../shared/networks';
import { fillerConsentMessage } from '../../shared/dutch';
import { makerKeyVerificationMessage } from '../../shared/identity/key-verification';
import { networkFile, randomAddress } from '../support/fixtures';
import { signedOffer } from '../support/offers';
import { buildApp, request } from '../support/http';
import { FIXTURE_PAIR, quoteBody, STRATEGY_ROWS } from '../support/quotes';
import { dutchBody, recordFixturePair } from '../support/dutch';
import { indexFixturePair, indexPlacement, orderBody } from '../support/orders';
import { createTestEnv, testConfig, type TestEnv } from '../support/test-env';
import type { PrivateKeyAccount } from 'viem/accounts';
import { bearer, newWallet, signedKeyAdd, signIn, signStatement } from '../support/wallets';
import type { WriteSnapshot } from './write-check';
import { openWriteWatch, type WriteWatch } from './write-watch';

/** Credentials and ids the fuzzer can put in requests, so generated requests get past auth and lookups. */
export interface FuzzMaterial {
  /**
   * Bearer tokens by who holds them. `maker_key_unverified`: a key made with the spec's body (no
   * `address_signature`), never verified; `maker_admin_b`: the admin of a second maker organization.
   */
  bearers: Record<'maker_admin' | 'maker_admin_b' | 'wallet' | 'taker_admin' | 'maker_key' | 'maker_key_unverified' | 'taker_key' | 'delegate', string>;
  quoteId: string;
  /** A Dutch auction that competes for the whole run (nothing awards it): bids and filler consents reach their checks. */
  dutchQuoteId: string;
  /** An order of the `wallet` bearer's wallet, placed on chain and held by a live exclusive fill of the `maker_key` bot. */
  heldOrderId: string;
  /** A maker key made with the spec's body, unverified until a request verifies it with `signed.verifyMakerKey`. */
  unverifiedMakerKeyId: string;
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
    /** The spec's add-key body: the admin's statement, no `address_signature` (an unverified key). */
    addMakerKeySpec: Record<string, unknown>;
    /** POST /api/maker/keys/:id/verify of `unverifiedMakerKeyId`: its bot wallet's signature. */
    verifyMakerKey: Record<string, unknown>;
    removeMakerKey: Record<string, unknown>;
    delegateAsAdmin: Record<string, unknown>;
    /** POST /api/taker/delegate with the taker key: the strict body, and the same with an unknown field. */
    delegateWithKey: Record<string, unknown>[];
    /** PUT /api/maker/organization by `maker_admin_b`: its admin role to the `maker_key` bot, cosigned by it (a wallet that backs another organization's key). */
    transferToOtherBot: Record<string, unknown>;
    /** Dutch bids on `dutchQuoteId`: a stranger filler with its consent, and a member of the bidding organization. */
    dutchBids: Record<string, unknown>[];
    /** Dutch create bodies: a fresh taker's, and one of a taker over DUTCH_TAKER_UNFILLABLE_LIMIT. */
    dutchQuotes: Record<string, unknown>[];
  };
}

export interface FuzzWorld {
  env: TestEnv;
  app: Express;
  ctx: ApiContext;
  baseUrl: string;
  material: FuzzMaterial;
  /** The full snapshot: every table's row count, every key of the test with its TTL's end. */
  snapshot(): Promise<WriteSnapshot>;
  /** Hears every write to the world's database and keys (write-watch.ts): when a snapshot is worth taking. */
  watch: WriteWatch;
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
    // The Dutch auction and the exclusive fill of the world outlive any run.
    QUOTE_MAX_EXPIRES_IN: '3600',
    EXCLUSIVE_FILL_TTL_SECONDS: '3600',
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
  // The spec's body (#38): no address_signature, the key is unverified.
  const specKeyBody = async (wallet: PrivateKeyAccount, name: string) => {
    const { address_signature: _consent, ...spec } = await signedKeyAdd(makerAdmin, wallet, { organization: makerOrg.id, name });
    return spec;
  };
  const unverifiedWallet = newWallet();
  const unverifiedKey = (
    await request(app)
      .post('/api/maker/keys')
      .set(bearer(makerToken))
      .send(await specKeyBody(unverifiedWallet, 'unverified bot'))
      .expect(201)
  ).body;
  const toVerifyWallet = newWallet();
  const toVerify = (
    await request(app)
      .post('/api/maker/keys')
      .set(bearer(makerToken))
      .send(await specKeyBody(toVerifyWallet, 'bot to verify'))
      .expect(201)
  ).body;
  // A second maker organization, whose admin tries to hand its role to the first one's bot.
  const adminB = newWallet();
  const orgB = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Fuzz Makers B', owner: adminB.address });
  const adminBToken = await signIn(app, adminB);
  const toBot = await signStatement(adminB, { action: 'transfer_admin', member: bot, organization: orgB.id, name: 'Fuzz Makers B' });
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
  // The pair as the indexer records it (its WETH / USDC triple: Dutch requests are checked against it); no bond asked.
  await recordFixturePair(env.db);
  await indexFixturePair(env.db);
  await ctx.services.networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '0', fill_bond_amount: '0' } });
  const longAuction = (taker: PrivateKeyAccount) =>
    dutchBody(taker, {
      request: { auction_end: Math.floor(Date.now() / 1000) + 3500 },
      body: { expires_in: 3500, compete_ms: 3_400_000, exclusive_ms: 1000 },
    });
  const dutchQuoteId = (
    await request(app)
      .post('/api/quote')
      .send(await longAuction(newWallet()))
      .expect(201)
  ).body.quote.id as string;
  const stranger = newWallet();
  // A taker that made DUTCH_TAKER_UNFILLABLE_LIMIT (3) windows impossible to fill, as the indexer records them.
  const blockedTaker = newWallet();
  for (let i = 1; i <= 3; i++) {
    await env.db.query(
      `INSERT INTO dutch_exclusive_outcomes (quote_id, chain_id, winner, organization_id, faded, taker_unfillable, taker, exclusive_ends_at, decided_block, decided_block_timestamp)
       VALUES ($1, 31337, $2, NULL, false, true, $3, now() - make_interval(mins => $4), $4, 0)`,
      [randomUUID(), bot, blockedTaker.address, i],
    );
  }
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
  // An order placed on chain (as the indexer records it) and held by the bot's live exclusive fill: its owner's cancel is pending.
  const held = (await request(app).post('/api/orders').set(bearer(walletToken)).send(orderBody(wallet.address)).expect(201)).body;
  await indexPlacement(env.db, held);
  await request(app)
    .post('/api/exclusive-fill')
    .set(bearer(makerKey.secret))
    .send({ order_ids: [held.id], reward_destination: bot })
    .expect(201);
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
  // Last, so that nothing above is heard.
  const watch = await openWriteWatch({
    db: env.db,
    databaseUrl: env.config.DATABASE_URL,
    tables,
    redisUrl: env.config.REDIS_URL,
    prefix,
    ignoreKey: (k) => !countsAsWrite(k, prefix),
  });

  return {
    env,
    app,
    ctx,
    baseUrl: `http://127.0.0.1:${port}`,
    watch,
    material: {
      bearers: {
        maker_admin: makerToken,
        maker_admin_b: adminBToken,
        wallet: walletToken,
        taker_admin: takerToken,
        maker_key: makerKey.secret,
        maker_key_unverified: unverifiedKey.secret,
        taker_key: takerKey.secret,
        delegate: delegate.token,
      },
      quoteId: created.quote.id,
      dutchQuoteId,
      heldOrderId: held.id as string,
      unverifiedMakerKeyId: toVerify.id as string,
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
        addMakerKeySpec: await specKeyBody(newWallet(), 'spec bot'),
        verifyMakerKey: {
          signature: await toVerifyWallet.signMessage({ message: makerKeyVerificationMessage(toVerify.id, toVerifyWallet.address, makerOrg.id) }),
        },
        delegateWithKey: [
          { address: newWallet().address, expires_in: 60 },
          { address: newWallet().address, expires_in: 60, organization: takerOrg.id },
        ],
        transferToOtherBot: { new_admin: bot, ...toBot, new_admin_signature: await botWallet.signMessage({ message: toBot.message }) },
        dutchBids: [
          {
            buy_override_bps: 10,
            sell_override_bps: 10,
            filler: stranger.address,
            filler_signature: await stranger.signMessage({ message: fillerConsentMessage(dutchQuoteId, bot, stranger.address) }),
          },
          { buy_override_bps: 5, sell_override_bps: 5, filler: makerAdmin.address },
        ],
        dutchQuotes: [await longAuction(newWallet()), await longAuction(blockedTaker)],
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
      await watch.close();
      server.closeAllConnections();
      await closeServer(server);
      await env.close();
    },
  };
}
