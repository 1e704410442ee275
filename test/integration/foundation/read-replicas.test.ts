import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { startPostgresPair, type PostgresPair } from '../../../dev/scaled/postgres-pair';
import { createDataSource } from '../../../shared/entities';
import { ReadReplicas, runMigrationsLocked } from '../../../shared/platform/db';
import { eventually } from '../../support/events';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Read routing on a real streaming replica this test starts (initdb + pg_basebackup -R, the
 * launcher `npm run stack:scaled` uses). Where a read ran is proved by data: with the replica's
 * replay paused, a row written on the primary is absent on the replica, so a read that sees it
 * ran on the primary and one that does not ran on the replica.
 */
describe('read replicas', () => {
  const DB = 'rfq_replicas';
  let dir: string;
  let pair: PostgresPair;
  let primary: DataSource;
  let replicaAdmin: DataSource;
  const routers: ReadReplicas[] = [];
  const reads: { loose: string[]; tight: string[] } = { loose: [], tight: [] };
  let loose: ReadReplicas;
  let tight: ReadReplicas;

  const router = (maxLagMs: number, log: string[]) => {
    const url = pair.url('replica', DB);
    const r = new ReadReplicas(primary, [{ url, ds: createDataSource({ url, poolSize: 2, connectTimeoutMs: 2000 }) }], {
      maxLagMs,
      checkMs: 100,
      onRead: (t) => log.push(t),
    });
    routers.push(r);
    r.start();
    return r;
  };
  const count = async (ds: DataSource, id: number) =>
    Number(((await ds.query('SELECT count(*)::int AS n FROM replica_probe WHERE id = $1', [id])) as { n: number }[])[0].n);
  const serving = (r: ReadReplicas) =>
    eventually(
      async () => r.states()[0],
      (s) => s.serving,
      60_000,
      'the replica serving reads',
    );
  const replayPaused = () =>
    eventually(
      async () => ((await replicaAdmin.query('SELECT pg_get_wal_replay_pause_state() AS s')) as { s: string }[])[0].s,
      (s) => s === 'paused',
      30_000,
      'replay paused',
    );

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rfq-replica-test-'));
    chmodSync(dir, 0o755);
    pair = startPostgresPair({ dir, primaryPort: await freePort(), replicaPort: await freePort() });
    const admin = createDataSource({ url: pair.url('primary', 'postgres'), poolSize: 1 });
    await admin.initialize();
    await admin.query(`CREATE DATABASE "${DB}"`);
    await admin.destroy();
    primary = createDataSource({ url: pair.url('primary', DB), poolSize: 4 });
    await primary.initialize();
    await runMigrationsLocked(primary);
    await primary.query('CREATE TABLE replica_probe (id int PRIMARY KEY)');
    replicaAdmin = createDataSource({ url: pair.url('replica', DB), poolSize: 1 });
    await eventually(
      async () => {
        if (!replicaAdmin.isInitialized) await replicaAdmin.initialize();
        return (await replicaAdmin.query(`SELECT to_regclass('replica_probe') IS NOT NULL AS ok`)) as { ok: boolean }[];
      },
      (rows) => rows[0].ok,
      60_000,
      'the schema on the replica',
    );
    loose = router(3_600_000, reads.loose);
    tight = router(300, reads.tight);
  }, 300_000);

  afterAll(async () => {
    for (const r of routers) await r.close();
    if (replicaAdmin?.isInitialized) await replicaAdmin.destroy().catch(() => undefined);
    if (primary?.isInitialized) await primary.destroy();
    await pair?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('reads run on a replica within its lag bound, queries and read-only transactions alike', async () => {
    await serving(loose);
    await replicaAdmin.query('SELECT pg_wal_replay_pause()');
    await replayPaused();
    await primary.query('INSERT INTO replica_probe (id) VALUES (1)');
    expect(await count(primary, 1)).toBe(1);
    reads.loose.length = 0;
    // Absent: the read ran on the paused replica.
    expect(await count(loose.reader(), 1)).toBe(0);
    const inTx = await loose.reader().transaction('REPEATABLE READ', (m) => m.query('SELECT count(*)::int AS n FROM replica_probe WHERE id = 1'));
    expect((inTx as { n: number }[])[0].n).toBe(0);
    expect(reads.loose).toEqual(['replica', 'replica']);
    // Everything but query and transaction is the primary's.
    expect(loose.reader().isInitialized).toBe(true);
    expect(loose.reader().options).toBe(primary.options);
  }, 120_000);

  it('a replica behind by more than the bound serves nothing; reads go to the primary and return once it has caught up', async () => {
    // Replay is still paused with row 1 not replayed: the replica falls behind the 300 ms bound.
    // A check that times out on a busy machine drops it as unreachable for a moment; what is
    // claimed here is the drop for lag, so wait for a check that reached it and measured.
    const state = await eventually(
      async () => tight.states()[0],
      (s) => !s.serving && s.up,
      60_000,
      'the tight router to drop the replica for lag',
    );
    expect(state.up).toBe(true);
    expect(state.problem).toMatch(/^behind by \d+ ms$/);
    reads.tight.length = 0;
    expect(await count(tight.reader(), 1)).toBe(1);
    expect(reads.tight).toEqual(['primary']);
    // The loose router still reads the paused replica.
    expect(await count(loose.reader(), 1)).toBe(0);

    await replicaAdmin.query('SELECT pg_wal_replay_resume()');
    await serving(tight);
    await eventually(
      () => count(replicaAdmin, 1),
      (n) => n === 1,
      60_000,
      'row 1 replayed',
    );
    reads.tight.length = 0;
    expect(await count(tight.reader(), 1)).toBe(1);
    expect(reads.tight).toEqual(['replica']);
  }, 240_000);

  it('an idle primary does not make a current replica look behind', async () => {
    // Nothing is written now: the last replayed commit ages, but the replica has replayed all
    // the primary has, so it keeps serving under the 300 ms bound.
    await serving(tight);
    const lsn = ((await primary.query('SELECT pg_current_wal_lsn()::text AS l')) as { l: string }[])[0].l;
    await eventually(
      async () => ((await replicaAdmin.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn])) as { ok: boolean }[])[0].ok,
      (ok) => ok,
      60_000,
      'the replica at the primary LSN',
    );
    // The last replayed commit is older than the bound: a replay-timestamp measure would drop it.
    await eventually(
      async () =>
        ((await replicaAdmin.query('SELECT (EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS ms')) as { ms: number }[])[0].ms,
      (ms) => ms > 1000,
      60_000,
      'the last replayed commit older than 1 s',
    );
    // A check that reached the replica (one that timed out on a busy machine says nothing of lag).
    const state = await eventually(
      async () => {
        await tight.check();
        return tight.states()[0];
      },
      (s) => s.up,
      60_000,
      'a check that reached the replica',
    );
    expect(state.serving).toBe(true);
    expect(state.lagMs).toBeLessThanOrEqual(300);
  }, 240_000);

  it('a killed replica costs no read an error: reads go to the primary at once, and back when it returns', async () => {
    await serving(loose);
    pair.stopReplica('immediate');
    reads.loose.length = 0;
    await primary.query('INSERT INTO replica_probe (id) VALUES (2)');
    // The first read may still pick the dead replica: it fails there and runs on the primary.
    expect(await count(loose.reader(), 2)).toBe(1);
    expect(await count(loose.reader(), 2)).toBe(1);
    expect(reads.loose).toEqual(['primary', 'primary']);
    expect(loose.states()[0]).toMatchObject({ up: false, serving: false });
    expect(loose.states()[0].problem).toMatch(/^(unreachable|failed a read)/);

    pair.startReplica();
    await serving(loose);
    await eventually(
      () => count(replicaAdmin, 2),
      (n) => n === 1,
      60_000,
      'row 2 replayed after the restart',
    );
    reads.loose.length = 0;
    expect(await count(loose.reader(), 2)).toBe(1);
    expect(reads.loose).toEqual(['replica']);
  }, 240_000);

  it('an error of the read itself is not a dead replica: it reaches the caller and the replica keeps serving', async () => {
    await serving(loose);
    reads.loose.length = 0;
    await expect(loose.reader().query('SELECT * FROM no_such_table')).rejects.toThrow(/no_such_table/);
    expect(reads.loose).toEqual([]);
    expect(loose.states()[0].serving).toBe(true);
  }, 120_000);
});
