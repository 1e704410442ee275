import { parseEther, parseUnits } from 'viem';
import { lendingActions, type LendingActions } from '../../../dev/lending';
import { request } from '../../support/http';
import { startWorkers, type Workers } from '../../support/workers';
import { bearer, newWallet, signIn } from '../../support/wallets';
import { mineBlocks, openHarness, runIndexer, waitForHead, type Harness } from '../indexer/harness';
import { join, phoenixSocket, startReplica, waitFor, type Replica } from '../socket/socket-harness';

/**
 * The nine loan routes over a real chain, indexer, worker and socket replica: the demo's story
 * (three loans, a top-up, repayments, a price fall, a liquidation), read back by an analyst
 * signed in from an allowed Origin (the challenge has no secret here, so it fails open).
 */
let h: Harness;
let ix: Awaited<ReturnType<typeof runIndexer>>;
let replica: Replica;
let workers: Workers;
let lend: LendingActions;
let session: string;
const ORIGIN = 'http://localhost:3000';
const WAD = 10n ** 18n;
const usdc = (n: string) => parseUnits(n, 6);
const loans = { topped: 0n, risky: 0n, repaid: 0n };

const api = () => request(replica.app);
const get = (path: string) => api().get(path).set(bearer(session)).set('Origin', ORIGIN);
const bad = async (path: string, field: string) => {
  const res = await get(path).expect(400);
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.details.map((d: { path: string }) => d.path)).toContain(field);
};

beforeAll(async () => {
  h = await openHarness();
  lend = lendingActions(h.chain.publicClient, h.chain.addresses);
  const [owner, lender, alice, bob] = [0, 5, 6, 7].map((i) => h.chain.wallets[i]);
  const { weth, wbtc } = h.chain.addresses;
  const c = h.chain.addresses.usdc;
  await lend.setPrice(owner, weth, 3000n * WAD);
  await lend.setPrice(owner, wbtc, 60_000n * WAD);
  await lend.setPrice(owner, c, WAD);
  const month = (await h.chain.now()) + 30 * 86_400;
  loans.topped = await lend.openLoan(lender, alice, {
    collateralToken: weth,
    collateralAmount: parseEther('1'),
    debtToken: c,
    principal: usdc('1800'),
    rateBps: 600,
    maturity: month,
  });
  loans.risky = await lend.openLoan(lender, bob, {
    collateralToken: weth,
    collateralAmount: parseEther('1'),
    debtToken: c,
    principal: usdc('2000'),
    rateBps: 800,
    maturity: month,
  });
  loans.repaid = await lend.openLoan(lender, bob, {
    collateralToken: wbtc,
    collateralAmount: parseUnits('0.1', 8),
    debtToken: c,
    principal: usdc('3000'),
    rateBps: 450,
    maturity: month,
  });
  await lend.addCollateral(alice, weth, loans.topped, parseEther('0.5'));
  await lend.repay(alice, c, loans.topped, usdc('600'));
  await lend.repayAll(bob, c, loans.repaid);
  // WETH at 2600: the 2000 loan is at 1.04 (at risk, not liquidatable).
  await lend.setPrice(owner, weth, 2600n * WAD);
  await h.register({ confirmations: 2 });
  ix = await runIndexer(h.env);
  await mineBlocks(h.chain, 3);
  await waitForHead(h);
  replica = await startReplica(h.env, { withApi: true });
  workers = startWorkers(h.env, { concurrency: 2 });
  session = await signIn(replica.app, newWallet());
}, 90_000);

afterAll(async () => {
  await workers?.close();
  await replica?.close();
  await ix?.stop();
  await h?.close();
});

describe('GET /api/explore/loans/summary', () => {
  it('totals active loans per token with USD values from the latest prices', async () => {
    const { body } = await get('/api/explore/loans/summary?chain_id=31337').expect(200);
    expect(body.networks).toHaveLength(1);
    const n = body.networks[0];
    expect(n.totals).toMatchObject({ active_loans: 2, at_risk_loans: 1, liquidatable_loans: 0, priced: true, at_risk_below: '1.1' });
    const weth = n.tokens.find((t: { symbol: string }) => t.symbol === 'WETH');
    expect(weth).toMatchObject({
      price_usd: '2600',
      as_collateral: { active_loans: 2, amount: parseEther('2.5').toString(), value_usd: '6500' },
      as_debt: { active_loans: 0 },
    });
    const usd = n.tokens.find((t: { symbol: string }) => t.symbol === 'USDC');
    expect(usd.as_debt).toMatchObject({ active_loans: 2, average_rate_bps: 700 });
    // The repaid loan is out of every total.
    expect(n.tokens.find((t: { symbol: string }) => t.symbol === 'WBTC')).toBeUndefined();
  });

  it('answers for every network with loans when chain_id is omitted, and refuses an unknown one', async () => {
    const { body } = await get('/api/explore/loans/summary').expect(200);
    expect(body.networks.map((x: { chain_id: number }) => x.chain_id)).toEqual([31337]);
    await bad('/api/explore/loans/summary?chain_id=999', 'chain_id');
    await bad('/api/explore/loans/summary?chain_id=abc', 'chain_id');
  });
});

describe('GET /api/explore/loans/at-risk', () => {
  it('ranks active loans below the line by health, least healthy first', async () => {
    const { body } = await get('/api/explore/loans/at-risk?chain_id=31337').expect(200);
    expect(body.items.map((l: { id: string }) => l.id)).toEqual([`31337-${loans.risky}`]);
    expect(body.items[0]).toMatchObject({ health_factor: '1.04', at_risk: true, liquidatable: false, state: 'active', borrower: h.chain.accounts[7].address });
    const wider = await get('/api/explore/loans/at-risk?chain_id=31337&below=5').expect(200);
    expect(wider.body.items.map((l: { id: string }) => l.id)).toEqual([`31337-${loans.risky}`, `31337-${loans.topped}`]);
    const health = wider.body.items.map((l: { health_factor: string }) => Number(l.health_factor));
    expect(health[0]).toBeLessThan(health[1]);
  });

  it('pages with next_cursor', async () => {
    const first = await get('/api/explore/loans/at-risk?chain_id=31337&below=5&limit=1').expect(200);
    expect(first.body.items).toHaveLength(1);
    const second = await get(`/api/explore/loans/at-risk?chain_id=31337&below=5&limit=1&cursor=${first.body.next_cursor}`).expect(200);
    expect(second.body).toMatchObject({ items: [expect.objectContaining({ id: `31337-${loans.topped}` })], next_cursor: null });
  });

  it('refuses a malformed line, limit or cursor, and a missing chain_id', async () => {
    await bad('/api/explore/loans/at-risk?chain_id=31337&below=-1', 'below');
    await bad('/api/explore/loans/at-risk?chain_id=31337&limit=0', 'limit');
    await bad('/api/explore/loans/at-risk?chain_id=31337&limit=501', 'limit');
    await bad('/api/explore/loans/at-risk?chain_id=31337&cursor=bm90LWEtY3Vyc29y', 'cursor');
    await bad('/api/explore/loans/at-risk', 'chain_id');
    expect((await get('/api/explore/loans/at-risk?chain_id=31337&sort=health').expect(400)).body.code).toBe('validation_failed');
  });
});

describe('GET /api/explore/loans/recent', () => {
  it('lists openings newest first in their current state', async () => {
    const { body } = await get('/api/explore/loans/recent?chain_id=31337').expect(200);
    expect(body.items.map((l: { id: string; state: string }) => [l.id, l.state])).toEqual([
      [`31337-${loans.repaid}`, 'repaid'],
      [`31337-${loans.risky}`, 'active'],
      [`31337-${loans.topped}`, 'active'],
    ]);
    expect(body.items[0]).toMatchObject({
      health_factor: null,
      closed_at: expect.any(String),
      collateral: { amount: '0', token: { symbol: 'WBTC', decimals: 8 } },
    });
  });
});

describe('GET /api/explore/loans/activity', () => {
  it('lists every loan event newest first, filtered by borrower, type, token and time', async () => {
    const all = await get('/api/explore/loans/activity?chain_id=31337').expect(200);
    expect(all.body.items.map((e: { kind: string }) => e.kind)).toEqual([
      'collateral_withdrawn',
      'repaid',
      'repaid',
      'collateral_added',
      'opened',
      'opened',
      'opened',
    ]);
    const alice = h.chain.accounts[6].address;
    const mine = await get(`/api/explore/loans/activity?chain_id=31337&borrower=${alice.toLowerCase()}`).expect(200);
    expect(mine.body.items.map((e: { kind: string }) => e.kind)).toEqual(['repaid', 'collateral_added', 'opened']);
    expect(mine.body.items.every((e: { borrower: string; lender: string }) => e.borrower === alice && e.lender === h.chain.accounts[5].address)).toBe(true);
    const repaid = await get('/api/explore/loans/activity?chain_id=31337&type=repaid').expect(200);
    expect(repaid.body.items).toHaveLength(2);
    const wbtc = await get(`/api/explore/loans/activity?chain_id=31337&token=${h.chain.addresses.wbtc}`).expect(200);
    expect(wbtc.body.items.map((e: { kind: string }) => e.kind)).toEqual(['collateral_withdrawn', 'repaid', 'opened']);
    const future = await get('/api/explore/loans/activity?chain_id=31337&from=2100-01-01T00:00:00Z').expect(200);
    expect(future.body.items).toEqual([]);
    const past = await get('/api/explore/loans/activity?chain_id=31337&to=2000-01-01T00:00:00Z').expect(200);
    expect(past.body.items).toEqual([]);
  });

  it('refuses malformed filters, naming each', async () => {
    await bad('/api/explore/loans/activity?chain_id=31337&borrower=0x123', 'borrower');
    await bad('/api/explore/loans/activity?chain_id=31337&type=borrowed', 'type');
    await bad('/api/explore/loans/activity?chain_id=31337&from=yesterday', 'from');
    await bad('/api/explore/loans/activity?chain_id=31337&from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z', 'from');
  });
});

describe('GET /api/explore/loans/events', () => {
  it('merges loan events and price updates newest first, each as indexed', async () => {
    const { body } = await get('/api/explore/loans/events?chain_id=31337&limit=3').expect(200);
    expect(body.items[0]).toMatchObject({ type: 'price', loan: null, price: { token: h.chain.addresses.weth, price_usd: '2600', decimals: 18 } });
    expect(body.items[1]).toMatchObject({ type: 'loan', price: null, loan: { kind: 'collateral_withdrawn' } });
    const prices = await get('/api/explore/loans/events?chain_id=31337&type=price').expect(200);
    expect(prices.body.items.map((i: { price: { price_usd: string } }) => i.price.price_usd)).toEqual(['2600', '1', '60000', '3000']);
    const next = await get(`/api/explore/loans/events?chain_id=31337&limit=3&cursor=${body.next_cursor}`).expect(200);
    expect(next.body.items[0]).toMatchObject({ type: 'loan', loan: { kind: 'repaid' } });
    await bad('/api/explore/loans/events?chain_id=31337&type=transfer', 'type');
  });
});

describe('GET /api/margin/loans, /:id and /:id/collateral', () => {
  it('lists loans by party and state', async () => {
    const bob = h.chain.accounts[7].address;
    const { body } = await get(`/api/margin/loans?chain_id=31337&borrower=${bob}`).expect(200);
    expect(body.items.map((l: { id: string }) => l.id)).toEqual([`31337-${loans.repaid}`, `31337-${loans.risky}`]);
    const active = await get(`/api/margin/loans?chain_id=31337&borrower=${bob}&state=active`).expect(200);
    expect(active.body.items.map((l: { id: string }) => l.id)).toEqual([`31337-${loans.risky}`]);
    await bad('/api/margin/loans?chain_id=31337&state=open', 'state');
  });

  it('shows one loan with its history', async () => {
    const { body } = await get(`/api/margin/loans/31337-${loans.topped}`).expect(200);
    expect(body).toMatchObject({
      id: `31337-${loans.topped}`,
      state: 'active',
      collateral: { amount: parseEther('1.5').toString(), value_usd: '3900', token: { symbol: 'WETH' } },
      debt: { principal: usdc('1800').toString(), token: { symbol: 'USDC', price_usd: '1' } },
      rate_bps: 600,
      liquidation_threshold_bps: 8000,
    });
    expect(body.history.map((e: { kind: string }) => e.kind)).toEqual(['opened', 'collateral_added', 'repaid']);
    // The 600 paid the accrued interest first, the rest went to principal.
    expect(BigInt(body.debt.outstanding)).toBe(usdc('1800') - (usdc('600') - BigInt(body.debt.interest_paid)));
  });

  it('lists its collateral movements, newest first', async () => {
    const { body } = await get(`/api/margin/loans/31337-${loans.repaid}/collateral`).expect(200);
    expect(
      body.items.map((e: { kind: string; collateral_delta: string; collateral_after: string }) => [e.kind, e.collateral_delta, e.collateral_after]),
    ).toEqual([
      ['collateral_withdrawn', (-parseUnits('0.1', 8)).toString(), '0'],
      ['opened', parseUnits('0.1', 8).toString(), parseUnits('0.1', 8).toString()],
    ]);
  });

  it('answers 404 for an unknown loan and 400 for a malformed id', async () => {
    const missing = await get('/api/margin/loans/31337-999').expect(404);
    expect(missing.body).toMatchObject({ error: 'no loan 31337-999', code: 'loan_not_found' });
    await get('/api/margin/loans/31337-999/collateral').expect(404);
    await bad('/api/margin/loans/loan-7', 'id');
    await bad('/api/margin/loans/31337-x/collateral', 'id');
  });
});

describe('POST /api/explore/loans/stream and explore_loan_stream', () => {
  it('sends the snapshot on join, then live events, an at-risk crossing after a price update among them, with seq and last_seq resume', async () => {
    const minted = await api().post('/api/explore/loans/stream').set(bearer(session)).set('Origin', ORIGIN).send({ chain_id: 31337 }).expect(201);
    expect(minted.body).toEqual({ stream_token: expect.any(String), topic: `explore_loan_stream:${minted.body.stream_token}`, expires_in: 3600 });
    const socket = phoenixSocket(replica.url);
    try {
      const joined = await join(socket, minted.body.topic);
      expect(joined.reply.status).toBe('ok');
      await waitFor(() => joined.events.length >= 1, 10_000, 'the snapshot');
      expect(joined.events[0]).toMatchObject({
        event: 'explore_loan_snapshot',
        payload: { seq: 1, chain_id: 31337, reason: 'join', block: { number: expect.any(Number) } },
      });
      const snap = joined.events[0].payload as unknown as { at_risk: { id: string }[]; summary: { totals: { active_loans: number } } };
      expect(snap.at_risk.map((l) => l.id)).toEqual([`31337-${loans.risky}`]);
      expect(snap.summary.totals.active_loans).toBe(2);

      // WETH back to 3000 lifts the loan over the line; to 2600 again puts it back at risk.
      // (Crossings are judged per indexed batch: wait for the first before the price moves back.)
      const health = () => joined.events.filter((e) => e.payload.event === 'health');
      await lend.setPrice(h.chain.wallets[0], h.chain.addresses.weth, 3000n * WAD);
      await waitFor(() => health().length >= 1, 15_000, 'the recovery');
      await lend.setPrice(h.chain.wallets[0], h.chain.addresses.weth, 2600n * WAD);
      await waitFor(() => health().length >= 2, 15_000, 'the crossing back');
      expect(health().map((e) => [e.payload.crossed, e.payload.cause, e.payload.loan])).toEqual([
        ['recovered', 'price_update', `31337-${loans.risky}`],
        ['at_risk', 'price_update', `31337-${loans.risky}`],
      ]);
      expect(joined.events.map((e) => e.payload.seq)).toEqual(joined.events.map((_, i) => i + 1));
      joined.channel.leave();

      // Rejoining with last_seq resumes after it: nothing before, nothing twice.
      const lastSeen = joined.events[1].payload.seq;
      const resumed = await join(socket, minted.body.topic, { last_seq: lastSeen });
      await waitFor(() => resumed.events.length >= joined.events.length - lastSeen, 10_000, 'the replay');
      expect(resumed.events.map((e) => e.payload.seq)).toEqual(joined.events.slice(lastSeen).map((e) => e.payload.seq));
    } finally {
      socket.disconnect();
    }
  });

  it('refuses an unknown network or a malformed body, and a join with a forged token', async () => {
    const res = await api().post('/api/explore/loans/stream').set(bearer(session)).set('Origin', ORIGIN).send({ chain_id: 999 }).expect(400);
    expect(res.body.details[0].path).toBe('chain_id');
    const extra = await api().post('/api/explore/loans/stream').set(bearer(session)).set('Origin', ORIGIN).send({ chain_id: 31337, filter: 'x' }).expect(400);
    expect(extra.body.code).toBe('validation_failed');
    const none = await api().post('/api/explore/loans/stream').set(bearer(session)).set('Origin', ORIGIN).send({}).expect(400);
    expect(none.body.details[0].path).toBe('chain_id');
    const socket = phoenixSocket(replica.url);
    try {
      const j = await join(socket, 'explore_loan_stream:forgedforgedforgedforged');
      j.channel.leave();
      expect(j.reply.status).toBe('error');
    } finally {
      socket.disconnect();
    }
  });
});
