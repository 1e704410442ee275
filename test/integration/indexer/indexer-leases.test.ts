import type { Hex } from 'viem';
import { LeaseLostError } from '../../../indexer/errors';
import { handleLogs } from '../../../indexer/chain-events/handle-logs';
import { IndexerStore } from '../../../indexer/store/indexer-store';
import { LeaseStore, type Fence } from '../../../indexer/store/lease-store';
import { StatusStore } from '../../../indexer/store/status-store';
import { spawnService, type RunningService } from '../../support/spawn-service';
import { cursorOf, mint, openHarness, optionId, recordCursorMoves, waitFor, waitForHead, type Harness } from './harness';
import { expectMirrorsChain } from './mirror';

/**
 * Several indexer processes on one network: one holds the network's lease and writes; when it
 * dies the other takes the lease over once it has expired and goes on from the committed
 * cursor, so every log is stored exactly once. A holder that lost its lease commits nothing.
 */
let h: Harness;
const procs: RunningService[] = [];

interface LeaseRow {
  holder: string;
  token: string;
  acquired_at: Date;
  expires_at: Date;
}

const leaseOf = async (): Promise<LeaseRow | null> =>
  ((await h.env.db.query(`SELECT holder, token, acquired_at, expires_at FROM indexer_leases WHERE chain_id = $1`, [h.chain.chainId])) as LeaseRow[])[0] ?? null;
const pidOf = (holder: string) => Number(holder.split(':')[1]);

/** Records every version of the lease row (a row trigger), so each change of holder can be checked against the lease before it. */
async function recordLeaseHistory(): Promise<{ rows(): Promise<LeaseRow[]> }> {
  await h.env.db.query(
    `CREATE TABLE test_lease_history (id bigserial PRIMARY KEY, holder text, token bigint, acquired_at timestamptz, expires_at timestamptz)`,
  );
  await h.env.db.query(`
    CREATE FUNCTION test_log_lease() RETURNS trigger AS $$
    BEGIN INSERT INTO test_lease_history (holder, token, acquired_at, expires_at) VALUES (NEW.holder, NEW.token, NEW.acquired_at, NEW.expires_at);
    RETURN NEW; END $$ LANGUAGE plpgsql`);
  await h.env.db.query(`CREATE TRIGGER test_lease_history AFTER INSERT OR UPDATE ON indexer_leases FOR EACH ROW EXECUTE FUNCTION test_log_lease()`);
  return { rows: async () => h.env.db.query(`SELECT holder, token, acquired_at, expires_at FROM test_lease_history ORDER BY id`) };
}

function spawnIndexer(): Promise<RunningService> {
  return spawnService(
    {
      ROLES: 'indexer',
      DATABASE_URL: h.env.config.DATABASE_URL,
      REDIS_URL: h.env.config.REDIS_URL,
      REDIS_PREFIX: h.env.config.REDIS_PREFIX,
      DEVCHAIN: 'off',
      INDEXER_POLL_INTERVAL_MS: '100',
      INDEXER_HEARTBEAT_MS: '200',
      INDEXER_NETWORKS_REFRESH_MS: '1000',
      INDEXER_LEASE_TTL_MS: '3000',
      INDEXER_LEASE_RENEW_MS: '500',
    },
    { readyMsg: 'started', timeoutMs: 120_000 },
  ).then((svc) => {
    procs.push(svc);
    return svc;
  });
}

beforeAll(async () => {
  h = await openHarness();
  await h.register();
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(procs.map((p) => p.stop('SIGKILL')));
  await h?.close();
});

describe('indexer leases', () => {
  it('a standby takes over a killed holder from its committed cursor: every log stored once', async () => {
    const moves = await recordCursorMoves(h.env);
    const history = await recordLeaseHistory();
    const id = await optionId(h.chain, 3000n);
    await mint(h.chain, h.chain.addresses.pair, 1, id, 10n);

    const [a, b] = await Promise.all([spawnIndexer(), spawnIndexer()]);
    const pids = new Set([a.child.pid, b.child.pid]);
    await waitForHead(h);
    await mint(h.chain, h.chain.addresses.pair, 2, id, 4n);
    await waitForHead(h);

    const first = (await waitFor('a lease', leaseOf, (l) => l !== null, 60_000))!;
    expect(pids.has(pidOf(first.holder))).toBe(true);
    const holder = pidOf(first.holder) === a.child.pid ? a : b;
    const standby = holder === a ? b : a;
    await holder.stop('SIGKILL');

    // Logs while nobody writes: the standby must pick them up after the lease expires.
    await mint(h.chain, h.chain.addresses.pair, 3, id, 6n);
    await mint(h.chain, h.chain.addresses.pair, 4, id, 2n);
    const taken = (await waitFor('the standby holds the lease', leaseOf, (l) => l !== null && pidOf(l.holder) === standby.child.pid, 90_000))!;
    expect(Number(taken.token)).toBeGreaterThan(Number(first.token));
    const head = await waitForHead(h);

    await expectMirrorsChain(h.chain, h.env, head);
    const steps = await moves.moves();
    // Never a block twice: the cursor only went forward, across the change of holder.
    for (let i = 1; i < steps.length; i++) expect(steps[i]).toBeGreaterThan(steps[i - 1]);
    expect(steps[steps.length - 1]).toBe(head);

    // Exclusive: each new token was taken only once the lease before it had run out.
    const rows = await history.rows();
    for (let i = 1; i < rows.length; i++) {
      if (rows[i].token === rows[i - 1].token) continue;
      expect(rows[i].acquired_at.getTime()).toBeGreaterThanOrEqual(rows[i - 1].expires_at.getTime());
    }

    // A clean stop lets the lease go at once.
    expect(await standby.stop('SIGTERM')).toBe(0);
    const released = (await h.env.db.query(`SELECT expires_at <= now() AS free FROM indexer_leases WHERE chain_id = $1`, [h.chain.chainId])) as {
      free: boolean;
    }[];
    expect(released[0].free).toBe(true);
  }, 300_000);

  describe('fencing', () => {
    const contractSet = async () =>
      ((await h.env.db.query(`SELECT contract_set FROM indexer_cursors WHERE chain_id = $1`, [h.chain.chainId])) as { contract_set: string }[])[0].contract_set;
    const nextBlock = async () => {
      await h.chain.rpc('evm_mine');
      const b = await h.chain.rpc<{ number: string; hash: Hex; parentHash: Hex; timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
      return { number: Number(b.number), hash: b.hash, parentHash: b.parentHash, timestamp: Number(b.timestamp) };
    };
    /** Takes the lease for `holder` once the current one has run out (database clock). */
    const takeWhenFree = async (leases: LeaseStore, holder: string): Promise<Fence> => {
      let got: Fence | null = null;
      await waitFor(
        `lease for ${holder}`,
        async () => (got = await leases.acquire(h.chain.chainId, holder)),
        (f) => f !== null,
        30_000,
      );
      return got!;
    };

    it('a holder whose lease was taken over commits nothing: its rows, cursor and status stay as the new holder left them', async () => {
      const short = new LeaseStore(h.env.db, 300);
      const stale = await takeWhenFree(short, 'paused-holder');
      // The paused holder's lease runs out and another process takes the network.
      const fresh = await takeWhenFree(new LeaseStore(h.env.db, 60_000), 'new-holder');
      expect(fresh.token).toBeGreaterThan(stale.token);

      const set = await contractSet();
      const store = new IndexerStore(h.env.db);
      const loaded = await store.load(h.chain.chainId, set);
      const before = await cursorOf(h.env, h.chain.chainId);
      const block = await nextBlock();
      const batch = {
        chainId: h.chain.chainId,
        contractSet: set,
        expected: loaded.cursor!,
        cursor: block,
        changes: handleLogs([], new Map()),
        window: { append: [block] },
      };
      await expect(store.fenced(stale).commit(batch)).rejects.toBeInstanceOf(LeaseLostError);
      expect(await cursorOf(h.env, h.chain.chainId)).toEqual(before);
      const kept = (await h.env.db.query(`SELECT 1 FROM indexer_blocks WHERE chain_id = $1 AND hash = $2`, [h.chain.chainId, block.hash])) as unknown[];
      expect(kept).toHaveLength(0);
      expect(await short.renew(stale)).toBe(false);

      const statusBefore = ((await h.env.db.query(`SELECT heartbeat_at, state FROM indexer_status WHERE chain_id = $1`, [h.chain.chainId])) as unknown[])[0];
      await new StatusStore(h.env.db).fenced(stale).write({
        chain_id: h.chain.chainId,
        state: 'starting',
        head: null,
        head_timestamp: null,
        cursor: null,
        cursor_timestamp: null,
        rpc_ok: false,
        last_error: 'stale',
        error_code: 'internal',
        action: null,
        last_synced_at: null,
        provider: null,
        audit: null,
      });
      expect(((await h.env.db.query(`SELECT heartbeat_at, state FROM indexer_status WHERE chain_id = $1`, [h.chain.chainId])) as unknown[])[0]).toEqual(
        statusBefore,
      );

      // The same batch under the live lease commits.
      await store.fenced(fresh).commit(batch);
      expect((await cursorOf(h.env, h.chain.chainId))?.block_number).toBe(block.number);
      await new LeaseStore(h.env.db, 60_000).release(fresh);
    }, 120_000);

    it('a takeover waits for a write that checked the lease before it ran out', async () => {
      const leases = new LeaseStore(h.env.db, 300);
      const old = await takeWhenFree(leases, 'slow-writer');
      const qr = h.env.db.createQueryRunner();
      await qr.connect();
      try {
        await qr.startTransaction();
        await LeaseStore.check(qr.manager, old);
        const [{ pid }] = (await qr.query(`SELECT pg_backend_pid() AS pid`)) as { pid: number }[];
        await waitFor(
          'the lease to run out',
          async () =>
            (
              (await h.env.db.query(`SELECT expires_at <= clock_timestamp() AS out FROM indexer_leases WHERE chain_id = $1`, [h.chain.chainId])) as {
                out: boolean;
              }[]
            )[0].out,
          (out) => out,
        );
        let taken: Fence | null | undefined;
        const taking = leases.acquire(h.chain.chainId, 'taker').then((f) => (taken = f));
        // The taker's statement waits on the writer's share lock (seen in pg_locks, not timed).
        await waitFor(
          'the taker to wait on the lease row',
          async () =>
            (
              (await h.env.db.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND $1 = ANY (pg_blocking_pids(pid))`, [pid])) as { n: number }[]
            )[0].n,
          (n) => n > 0,
        );
        expect(taken).toBeUndefined();
        await qr.commitTransaction();
        await taking;
        expect(taken?.token).toBe(old.token + 1);
      } finally {
        if (qr.isTransactionActive) await qr.rollbackTransaction();
        await qr.release();
      }
    }, 60_000);
  });
});
