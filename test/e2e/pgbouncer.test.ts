import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../../client/src';
import { runDemoMaker } from '../../examples/demo-maker';
import { runTaker } from '../../examples/taker';
import { waitFor } from '../integration/socket/socket-harness';
import { freePort } from '../support/chain';
import { eventually } from '../support/events';
import { opsOn } from '../support/ops';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer';
import { spawnService, type RunningService } from '../support/spawn-service';
import { createTestEnv, type TestEnv } from '../support/test-env';

/** Hardhat's third default account: the taker of `npm run demo`. */
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

/**
 * The whole service (all four roles and its devchain) with every pooled connection through a
 * real PgBouncer in transaction pooling mode, configured as docs/SCALING.md says; the schema was
 * migrated on a direct connection first (migrations take an advisory lock, which belongs on a
 * direct URL). A quote is requested, offered, settled on chain and marked filled by the indexer,
 * whose network lease is a row, so it works through the pooler too.
 */
describe('behind PgBouncer in transaction mode', () => {
  let env: TestEnv;
  let bouncer: PgBouncer;
  let svc: RunningService;

  beforeAll(async () => {
    env = await createTestEnv();
    bouncer = await startPgBouncer(await freePort());
    svc = await spawnService(
      {
        DATABASE_URL: bouncer.url(env.dbName),
        MIGRATE_ON_START: 'false',
        REDIS_URL: env.config.REDIS_URL,
        REDIS_PREFIX: env.config.REDIS_PREFIX,
        DEVCHAIN: 'auto',
        DEVCHAIN_PORT: String(await freePort()),
        INDEXER_POLL_INTERVAL_MS: '200',
        DATABASE_STATEMENT_TIMEOUT_MS: '10000',
      },
      { timeoutMs: 120_000 },
    );
  }, 180_000);
  afterAll(async () => {
    await svc?.stop('SIGTERM');
    await bouncer?.stop();
    await env?.close();
  }, 60_000);

  it('a quote is requested, offered, settled and marked filled with every role pooled per transaction', async () => {
    const client = new RfqClient(svc.url);
    const net = (await client.networks()).networks.find((n) => n.chain_id === 31337)!;
    const maker = privateKeyToAccount(generatePrivateKey());
    expect(
      await opsOn({ DATABASE_URL: bouncer.url(env.dbName) }, 'org:create', '--kind', 'maker', '--name', 'Pooled maker', '--owner', maker.address),
    ).toMatchObject({
      code: 0,
    });
    const seen: { topic: string; event: string }[] = [];
    const bot = await runDemoMaker({
      client,
      account: maker,
      chainId: 31337,
      mothership: networkContract(net, 'mothership'),
      premiumToken: networkContract(net, 'usdc'),
      onMessage: (topic, event) => seen.push({ topic, event }),
    });
    const xacts = async () => Number((await bouncer.admin('SHOW STATS')).find((s) => s.database === env.dbName)?.total_xact_count ?? 0);
    const before = await xacts();
    try {
      const result = await runTaker({
        client,
        account: privateKeyToAccount(TAKER_KEY),
        chainId: 31337,
        rpcUrl: net.rpc_urls[0],
        mothership: networkContract(net, 'mothership'),
        pair: networkContract(net, 'opshuns_core'),
      });
      expect(result.offer.maker).toBe(maker.address);
      // The indexer saw the settlement and closed the quote: the maker hears the result.
      await waitFor(() => seen.some((m) => m.topic.startsWith('rfq_maker') && m.event === 'rfq_result'), 60_000, "the maker's rfq_result");
    } finally {
      await bot.stop();
    }

    // The indexer holds its network's lease through the pooler and is current.
    const status = await eventually(
      async () => fetch(`${svc.url}/api/indexer/status?chain_id=31337`),
      (r) => r.status === 200,
      60_000,
      'indexer status healthy',
    );
    await status.text();

    // The traffic really went through PgBouncer, pooled per transaction.
    const pools = await bouncer.admin('SHOW POOLS');
    expect(pools.find((p) => p.database === env.dbName)).toMatchObject({ pool_mode: 'transaction' });
    // The flow's own writes went through it: at least the quote, the offer, the indexed fill and
    // the quote's close, each its own transaction. (Counted as a difference across the flow, not
    // as a total, which depends on how long the service idled and polled before it.)
    expect((await xacts()) - before).toBeGreaterThanOrEqual(4);
    // Nothing needed a session: no role logged an error.
    expect(svc.lines.filter((l) => l.level === 'error' || l.level === 'fatal')).toEqual([]);
  }, 240_000);
});
