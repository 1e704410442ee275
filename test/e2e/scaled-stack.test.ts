import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { networkContract, RfqClient } from '../../client/src';
import { runDemoMaker } from '../../examples/demo-maker';
import { runTaker } from '../../examples/taker';
import { Client } from 'pg';
import { waitFor, waitForAsync } from '../integration/socket/socket-harness';
import { assertNoTakerIdentity, eventually } from '../support/events';
import { FeedRecorder } from '../faults/feed-recorder';
import { RECOVERY_ANNOUNCE_BOUND_MS } from '../faults/fault-outcome';
import { QuoteLoad, type LoadOutcome } from '../faults/quote-load';
import { opsOn } from '../support/ops';
import { scriptArgs } from '../support/test-build';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
/** Hardhat's third default account: the taker of `npm run demo`. */
const TAKER_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';

interface Ready {
  base_url: string;
  redis: string;
  database_url: string;
  env_file: string;
  pids: number[];
  processes: Record<string, number>;
  ports: { redisCluster: number[] };
  postgres_pids: { primary: number; replica: number };
  tmp: string;
}

const FINAL_STATES = ['expired', 'filled', 'cancelled'];
/** The fault suite's steady load (test/faults/fault-suite.test.ts), through HAProxy. */
const LOAD = { requests: 120, intervalMs: 40, expiresIn: 6 };
/**
 * The quotes' window while a Redis master fails over: several times the failovers seen (a few
 * seconds, under ten on a busy machine), and short enough that the quotes finalize within the
 * test's budget.
 */
const FAILOVER_WINDOW_S = 30;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * `npm run stack:scaled` as an operator runs it: the whole scaled topology from the machine's
 * binaries (Redis Cluster, Postgres primary + streaming replica, HAProxy, two of each role, two
 * indexers, the devchain). A quote created through HAProxy reaches a maker connected through
 * HAProxy, who offers; the taker settles on chain. SIGTERM then leaves nothing behind.
 */
describe('npm run stack:scaled', () => {
  let stack: ChildProcess;
  let ready: Ready;
  let out = '';
  let err = '';
  let exited: Promise<number | null>;

  beforeAll(async () => {
    // Compiled from the run's build when it is fresh: the stack then starts its devchain and its
    // eight roles compiled too (dev/scaled/stack.ts, startArgs); else all through tsx.
    stack = spawn(process.execPath, scriptArgs('dev/scaled/stack.ts'), {
      cwd: ROOT,
      // The fault loads come from this one address: the quote limits must not be what they measure.
      // A quiet LOG_LEVEL: the stack finds its replicas' ports whatever the level says.
      env: { ...process.env, LOG_LEVEL: 'warn', QUOTE_RATE_LIMIT_PER_IP: '1000000', QUOTE_RATE_LIMIT_PER_CREDENTIAL: '1000000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => stack.once('close', (code) => resolve(code)));
    stack.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    ready = await new Promise<Ready>((resolve, reject) => {
      stack.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.startsWith('{') && l.includes('"event":"ready"'));
        if (line) resolve(JSON.parse(line) as Ready);
      });
      void exited.then((code) => reject(new Error(`stack:scaled exited with ${code} before it was ready:\n${err}`)));
    });
  }, 900_000);

  afterAll(async () => {
    if (stack && stack.exitCode === null && stack.signalCode === null) {
      stack.kill('SIGTERM');
      await exited;
    }
  }, 180_000);

  it('prints its base URL, runs the roles on the Redis Cluster, and balances both API replicas behind HAProxy', async () => {
    expect(out).toContain(`RFQ scaled stack ready: ${ready.base_url}`);
    // The shell file that points the demos and the CLI at this stack, its path printed.
    expect(out).toContain(`. ${ready.env_file}`);
    const envFile = readFileSync(ready.env_file, 'utf8');
    expect(envFile).toContain(`export BASE_URL=${ready.base_url}\n`);
    expect(envFile).toContain(`export DATABASE_URL=${ready.database_url}\n`);
    expect(ready.redis).toBe('cluster');
    const served = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${ready.base_url}/readyz`);
      expect(r.status).toBe(200);
      served.add(r.headers.get('x-served-by') ?? '');
    }
    expect([...served].sort()).toEqual(['api-1', 'api-2']);
  });

  it('a quote created through HAProxy reaches a maker connected through HAProxy, who offers; the taker settles', async () => {
    const client = new RfqClient(ready.base_url);
    const devnet = async () => (await client.networks()).networks.find((n) => n.chain_id === 31337);
    await waitForAsync(async () => (await devnet()) !== undefined, 60_000, 'network 31337 in the registry');
    const net = (await devnet())!;
    const maker = privateKeyToAccount(generatePrivateKey());
    expect(
      await opsOn({ DATABASE_URL: ready.database_url }, 'org:create', '--kind', 'maker', '--name', 'Scaled maker', '--owner', maker.address),
    ).toMatchObject({
      code: 0,
    });
    const seen: { topic: string; event: string; payload: unknown }[] = [];
    const bot = await runDemoMaker({
      client,
      account: maker,
      chainId: 31337,
      mothership: networkContract(net, 'mothership'),
      premiumToken: networkContract(net, 'usdc'),
      onMessage: (topic, event, payload) => seen.push({ topic, event, payload }),
    });
    const taker = privateKeyToAccount(TAKER_KEY);
    try {
      const result = await runTaker({
        client,
        account: taker,
        chainId: 31337,
        rpcUrl: net.rpc_urls[0],
        mothership: networkContract(net, 'mothership'),
        pair: networkContract(net, 'opshuns_core'),
      });
      expect(result.offer.maker).toBe(maker.address);
      const events = () => seen.map((m) => `${m.topic.split(':')[0]}:${m.event}`);
      await waitFor(() => events().includes('rfq_maker:rfq_result'), 120_000, "the maker's rfq_result");
      expect(events()).toEqual(expect.arrayContaining(['quotes:rfq_request', 'rfq_maker:rfq_offer', 'rfq_maker:rfq_result']));
      assertNoTakerIdentity(
        seen.filter((m) => !m.event.startsWith('phx_')).map((m) => m.payload),
        { taker: taker.address },
      );
    } finally {
      await bot.stop();
    }
  }, 300_000);

  /** Reads of indexed data through HAProxy, every 50 ms until stopped; each status is kept. */
  function readLoop(path: string) {
    const statuses: string[] = [];
    let running = true;
    const done = (async () => {
      while (running) {
        try {
          const r = await fetch(`${ready.base_url}${path}`, { signal: AbortSignal.timeout(15_000) });
          await r.text();
          statuses.push(r.status === 503 && Number(r.headers.get('retry-after')) >= 1 ? '503+retry-after' : String(r.status));
        } catch (err) {
          statuses.push(`failed: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    return {
      statuses,
      stop: async () => {
        running = false;
        await done;
      },
    };
  }

  /** Routed reads of both API replicas by target, summed from their /metrics (each pinned through HAProxy). */
  async function routedReads(): Promise<{ replica: number; primary: number }> {
    const sum = { replica: 0, primary: 0 };
    for (const name of ['api-1', 'api-2']) {
      const r = await fetch(`${ready.base_url}/metrics`, { headers: { 'x-rfq-replica': name } });
      const text = await r.text();
      for (const target of ['replica', 'primary'] as const) {
        const m = new RegExp(`^rfq_db_routed_reads_total\\{target="${target}"\\} (\\d+)`, 'm').exec(text);
        if (m) sum[target] += Number(m[1]);
      }
    }
    return sum;
  }

  /** The log lines of the stack's roles (its temporary directory's logs/) that `keep` selects. */
  function roleLog(names: string[], keep: (line: string) => boolean): string[] {
    return names.flatMap((name) => {
      const file = path.join(ready.tmp, 'logs', `${name}.log`);
      return existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter(keep)
            .map((l) => `${name}: ${l.slice(0, 400)}`)
        : [];
    });
  }

  /**
   * Every 201 of the load reaches a final state and is announced at most once on the maker's
   * request feed, with no gap or repeat in the feed; no 5xx but 503 with Retry-After. Every 201
   * is due its announcement, or, for a dependency outage (`recoveredAt`, when it was back), every
   * 201 still open at that moment (the fault suite's invariant): a quote whose window ended while
   * the dependency was down is finalized without one. A due quote created before the recovery
   * is on the feed within RECOVERY_ANNOUNCE_BOUND_MS of it.
   */
  async function expectNothingLostOrDuplicated(load: LoadOutcome, feed: FeedRecorder, fault: string, recoveredAt?: number): Promise<void> {
    // A 500 is a bug: show what the API replicas logged for those requests.
    const apiErrors = () => {
      const ids = load.other5xx.map((t) => /"request_id":"([^"]+)"/.exec(t)?.[1]).filter((id): id is string => Boolean(id));
      return roleLog(['api-1', 'api-2'], (l) => ids.some((id) => l.includes(id))).slice(0, 10);
    };
    expect({ other5xx: load.other5xx, logged: load.other5xx.length ? apiErrors() : [] }).toEqual({ other5xx: [], logged: [] });
    expect(load.otherFailures).toEqual([]);
    expect(load.created.length).toBeGreaterThan(0);
    const ids = load.created.map((q) => q.id);
    const db = new Client({ connectionString: ready.database_url });
    await db.connect();
    try {
      const finals = await eventually(
        async () =>
          (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM quotes WHERE id = ANY($1) AND state = ANY($2)', [ids, FINAL_STATES])).rows[0].n,
        (n) => n === ids.length,
        120_000,
        'every created quote in a final state',
      ).catch(async (err: unknown) => {
        // What the workers said, and the quotes left open: a stuck queue consumer or sweeper shows here.
        const open = (
          await db.query<{ id: string; state: string; expires_at: Date }>(
            'SELECT id, state, expires_at FROM quotes WHERE id = ANY($1) AND state <> ALL($2) LIMIT 5',
            [ids, FINAL_STATES],
          )
        ).rows;
        throw new Error(
          `${(err as Error).message}\nsome left: ${JSON.stringify(open)}\nworkers said:\n${roleLog(['workers-1', 'workers-2'], (l) =>
            /"level":"(warn|error|fatal)"/.test(l),
          )
            .slice(-30)
            .join('\n')}`,
          { cause: err },
        );
      });
      // Open at the recovery: its window had not ended and it was not closed before.
      const rows = (
        await db.query<{ id: string; expires_at: Date; created_at: Date; closed_at: Date | null }>(
          'SELECT id, expires_at, created_at, closed_at FROM quotes WHERE id = ANY($1)',
          [ids],
        )
      ).rows;
      const due = rows.filter(
        (r) => recoveredAt === undefined || (r.expires_at.getTime() > recoveredAt && (r.closed_at === null || r.closed_at.getTime() > recoveredAt)),
      );
      const announced = () => {
        const first = new Map<string, { n: number; at: number }>();
        for (const e of feed.received('rfq_request')) {
          const id = String(e.payload.quote_id);
          const prev = first.get(id);
          first.set(id, { n: (prev?.n ?? 0) + 1, at: prev?.at ?? e.at });
        }
        return first;
      };
      const seen = await eventually(
        async () => announced(),
        (c) => due.every((r) => c.has(r.id)),
        60_000,
        'every due quote announced',
      ).catch((err: unknown) => {
        // What the feed saw, to tell lost announcements from a stream whose seqs went back.
        const c = announced();
        const missing = due.filter((r) => !c.has(r.id)).length;
        throw new Error(
          `${(err as Error).message}: ${missing} of ${due.length} due never announced; feed events=${feed.events.length} joins=${feed.joins} gaps=${feed.gaps} duplicates=${feed.duplicates}`,
          { cause: err },
        );
      });
      const repeated = ids.filter((id) => (seen.get(id)?.n ?? 0) > 1);
      expect(repeated).toEqual([]);
      expect({ gaps: feed.gaps, duplicates: feed.duplicates }).toEqual({ gaps: 0, duplicates: 0 });
      // A due quote created before the recovery reached the feed within the bound of it.
      const delays = recoveredAt === undefined ? [] : due.filter((r) => r.created_at.getTime() < recoveredAt).map((r) => seen.get(r.id)!.at - recoveredAt);
      expect(delays.filter((ms) => ms > RECOVERY_ANNOUNCE_BOUND_MS)).toEqual([]);
      if (recoveredAt === undefined) expect(due.length).toBe(ids.length);
      expect(due.length).toBeGreaterThan(0);
      process.stdout.write(
        `[fault] scaled, ${fault}: sent=${load.sent} 201=${load.created.length} 503=${load.unavailable} other_5xx=${load.other5xx.length} due=${due.length} announced=${due.filter((r) => seen.has(r.id)).length} recovery_ms=${recoveredAt === undefined ? '-' : Math.max(0, ...delays)} finalized=${finals} duplicates=${repeated.length}\n`,
      );
    } finally {
      await db.end();
    }
  }

  async function makerFeed(): Promise<FeedRecorder> {
    const client = new RfqClient(ready.base_url);
    const maker = privateKeyToAccount(generatePrivateKey());
    expect(
      await opsOn({ DATABASE_URL: ready.database_url }, 'org:create', '--kind', 'maker', '--name', 'Scaled fault maker', '--owner', maker.address),
    ).toMatchObject({ code: 0 });
    const token = (await client.signIn(maker)).token;
    await client.call('POST', '/api/pubsub/premium', { chain_id: 31337 }, { authorization: `Bearer ${token}` });
    return FeedRecorder.open(`${ready.base_url.replace(/^http/, 'ws')}/socket`, 'quotes:31337:requests', { token });
  }

  async function pairAddress(): Promise<string> {
    const net = (await new RfqClient(ready.base_url).networks()).networks.find((n) => n.chain_id === 31337)!;
    return networkContract(net, 'opshuns_core');
  }

  it('the Postgres replica killed under a steady quote load: reads fall back to the primary, nothing lost or duplicated', async () => {
    const feed = await makerFeed();
    const reads = readLoop(`/api/portfolio/${privateKeyToAccount(TAKER_KEY).address}?chain_id=31337`);
    try {
      // Reads run on the replica before the fault (each API replica checks it every 500 ms).
      await eventually(routedReads, (n) => n.replica > 0, 60_000, 'reads served by the replica');
      const before = await routedReads();
      const load = await new QuoteLoad(ready.base_url, { ...LOAD, pair: await pairAddress() }).run(async (l) => {
        await l.waitAnswered(LOAD.requests / 3);
        process.kill(ready.postgres_pids.replica, 'SIGKILL');
      });
      // After the kill the API replicas read from the primary.
      await eventually(routedReads, (n) => n.primary > before.primary, 60_000, 'reads served by the primary');
      await reads.stop();
      expect(reads.statuses.filter((s) => s !== '200')).toEqual([]);
      await expectNothingLostOrDuplicated(load, feed, 'Postgres replica killed');
    } finally {
      await reads.stop();
      await feed.close();
    }
  }, 300_000);

  it('the indexer holding the network killed under a steady quote load: the standby takes the lease, nothing lost or duplicated', async () => {
    const db = new Client({ connectionString: ready.database_url });
    await db.connect();
    const feed = await makerFeed();
    try {
      const holderPid = async () => {
        const r = await db.query<{ holder: string }>('SELECT holder FROM indexer_leases WHERE chain_id = 31337 AND expires_at > now()');
        return r.rows.length ? Number(r.rows[0].holder.split(':').at(-2)) : null;
      };
      const indexers = [ready.processes['indexer-1'], ready.processes['indexer-2']];
      const holder = await eventually(holderPid, (p) => p !== null && indexers.includes(p), 60_000, 'a lease on network 31337 held by a stack indexer');
      const standby = indexers.find((p) => p !== holder)!;
      const load = await new QuoteLoad(ready.base_url, { ...LOAD, pair: await pairAddress() }).run(async (l) => {
        await l.waitAnswered(LOAD.requests / 3);
        process.kill(holder!, 'SIGKILL');
      });
      // The standby takes over within INDEXER_LEASE_TTL_MS + INDEXER_LEASE_RENEW_MS of the last renewal.
      await eventually(holderPid, (p) => p === standby, 120_000, 'the standby holding the lease');
      const status = await eventually(
        async () => fetch(`${ready.base_url}/api/indexer/status?chain_id=31337`),
        (r) => r.status === 200,
        60_000,
        'indexer status healthy under the standby',
      );
      await status.text();
      await expectNothingLostOrDuplicated(load, feed, 'indexer holding the lease killed');
    } finally {
      await feed.close();
      await db.end();
    }
  }, 300_000);

  it('an API replica killed under a steady quote load: HAProxy retries what is safe to retry, nothing lost or duplicated', async () => {
    const feed = await makerFeed();
    const reads = readLoop('/api/networks');
    try {
      const victim = ready.processes['api-1'];
      // Every create carries its own Idempotency-Key, so one that api-1 took and died with is
      // sent again to api-2 (HAProxy's retry-on) and answered once, never created twice.
      const load = await new QuoteLoad(ready.base_url, { ...LOAD, pair: await pairAddress(), idempotencyKeys: true }).run(async (l) => {
        await l.waitAnswered(LOAD.requests / 3);
        process.kill(victim, 'SIGKILL');
      });
      await reads.stop();
      await eventually(
        async () => alive(victim),
        (a) => !a,
        30_000,
        'api-1 gone',
      );
      // GETs are retried too: no read failed, none saw a 502.
      expect(reads.statuses.filter((s) => s !== '200')).toEqual([]);
      await expectNothingLostOrDuplicated(load, feed, 'an API replica killed');
    } finally {
      await reads.stop();
      await feed.close();
    }
  }, 300_000);

  it('the Redis master of the quotes queue killed under a steady quote load: its replica takes over, every quote open at recovery announced, nothing duplicated', async () => {
    const feed = await makerFeed();
    // Asynchronous, so that the load and the feed's receive times go on while it polls.
    const cli = async (port: number, ...args: string[]) =>
      (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 5_000 }).catch(() => ({ stdout: '' }))).stdout.trim();
    const ports = ready.ports.redisCluster;
    // The slot of the quotes queue's keys (hash-tagged `{quotes}`) and the master serving it.
    const slot = Number(await cli(ports[0], 'cluster', 'keyslot', 'rfq:bull:{quotes}:wait'));
    const masterOf = async (s: number): Promise<number | null> => {
      const views = await Promise.all(ports.map((port) => cli(port, 'cluster', 'nodes')));
      for (const [i, view] of views.entries()) {
        const self = view.split('\n').find((l) => l.includes('myself') && l.includes('master') && !l.includes('fail'));
        // Fields 9 on: the slots (`a-b` ranges or single slots) this node serves.
        const ranges = self?.split(' ').slice(8) ?? [];
        if (ranges.some((r) => (r.includes('-') ? s >= Number(r.split('-')[0]) && s <= Number(r.split('-')[1]) : Number(r) === s))) return ports[i];
      }
      return null;
    };
    const before = await masterOf(slot);
    expect(before).not.toBeNull();
    const victim = ready.processes[`redis-cluster-${ports.indexOf(before!) + 1}`];
    let recoveredAt: number | undefined;
    try {
      // A create commits before it touches the quotes' slot (its stream token is signed, its expiry
      // the workers' clock), so quotes go on being created while that master is down and expire by
      // the clock meanwhile: a window several times a failover's keeps quotes open at the recovery, so the invariant below always has quotes to hold for.
      const load = await new QuoteLoad(ready.base_url, { ...LOAD, expiresIn: FAILOVER_WINDOW_S, pair: await pairAddress() }).run(async (l) => {
        await l.waitAnswered(LOAD.requests / 3);
        process.kill(victim, 'SIGKILL');
        // Back: the promoted replica answers for the slot and takes a write to a `{quotes}` key.
        const after = await eventually(
          async () => {
            const port = await masterOf(slot);
            return port !== null && port !== before && (await cli(port, 'set', 'rfq:fault-probe:{quotes}', '1')) === 'OK' ? port : null;
          },
          (p) => p !== null,
          60_000,
          'a new master for the quotes slot taking writes',
        );
        recoveredAt = Date.now();
        expect(after).not.toBe(before);
      });
      expect(recoveredAt).toEqual(expect.any(Number));
      await expectNothingLostOrDuplicated(load, feed, 'the Redis master of the quotes queue killed', recoveredAt);
    } finally {
      await feed.close();
    }
  }, 300_000);

  it('SIGTERM stops everything: no process of the stack alive, its temporary directory gone', async () => {
    stack.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(ready.pids.length).toBeGreaterThanOrEqual(17);
    // A postmaster removes its pid file (what pg_ctl stop waits for) a moment before it exits: on a busy machine that moment is visible.
    expect(
      await eventually(
        async () => ready.pids.filter(alive),
        (left) => left.length === 0,
        30_000,
        'every process of the stack gone',
      ),
    ).toEqual([]);
    expect(existsSync(ready.tmp)).toBe(false);
    expect(err).toContain('stopped; nothing left behind');
  }, 180_000);
});
