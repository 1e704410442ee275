import type { Express } from 'express';
import { encodeOptionId } from '../../../shared/protocol';
import { NetworksService } from '../../../shared/networks';
import { networkFile, randomAddress } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { FIXTURE_PAIR, FIXTURE_USDC } from '../../support/quotes';
import { createTestEnv, type TestEnv } from '../../support/test-env';

/**
 * The spec's portfolio: `holdings` is every balance > 0. An expired series with a balance left is
 * still held (the wallet may exercise or settle it) and says so; only ids held no more are closed.
 */
describe('GET /api/portfolio/:address holdings', () => {
  let env: TestEnv;
  let app: Express;
  const holder = randomAddress();
  const now = Math.floor(Date.now() / 1000);
  const live = encodeOptionId({ option_type: 0, strike_wad: 3000n, expiry_timestamp: now + 86_400, start_exercise_timestamp: 0 });
  const expired = encodeOptionId({ option_type: 1, strike_wad: 2500n, expiry_timestamp: now - 86_400, start_exercise_timestamp: 0 });
  const sold = encodeOptionId({ option_type: 0, strike_wad: 3500n, expiry_timestamp: now + 86_400, start_exercise_timestamp: 0 });
  const soldExpired = encodeOptionId({ option_type: 0, strike_wad: 4000n, expiry_timestamp: now - 60, start_exercise_timestamp: 0 });

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
    await new NetworksService(env.db).upsertNetwork(networkFile(31337));
    // The indexer is the only writer of these tables; the test stands in for it.
    await env.db.query(
      `INSERT INTO indexer_pairs (chain_id, address, factory, token0, token1, premium_token, created_block, created_block_hash, created_log_index, tx_hash)
       VALUES (31337, $1, $2, $3, $3, $3, 1, '0x01', 0, '0x02')`,
      [FIXTURE_PAIR, randomAddress(), FIXTURE_USDC],
    );
    const balance = (id: bigint, amount: string) =>
      env.db.query(
        `INSERT INTO indexer_balances (chain_id, holder, pair, option_id, balance, first_block, updated_block) VALUES (31337, $1, $2, $3, $4, 1, 2)`,
        [holder, FIXTURE_PAIR, id.toString(), amount],
      );
    await balance(live, '5');
    await balance(expired, '3');
    await balance(sold, '0');
    await balance(soldExpired, '0');
  });
  afterAll(() => env.close());

  it('keeps an expired series with a balance in holdings, marked expired; closed has only ids held no more', async () => {
    const res = await request(app).get(`/api/portfolio/${holder}`).query({ chain_id: '31337' }).expect(200);
    const [net] = res.body.networks;
    const ids = (list: { option_id: string }[]) => list.map((h) => h.option_id).sort();
    expect(ids(net.holdings)).toEqual([live.toString(), expired.toString()].sort());
    expect(net.holdings.find((h: { option_id: string }) => h.option_id === live.toString())).toMatchObject({
      balance: '5',
      expired: false,
      option_type: 'call',
    });
    expect(net.holdings.find((h: { option_id: string }) => h.option_id === expired.toString())).toMatchObject({
      balance: '3',
      expired: true,
      option_type: 'put',
      expiry_timestamp: now - 86_400,
    });
    expect(ids(net.closed)).toEqual([sold.toString(), soldExpired.toString()].sort());
    for (const c of net.closed) expect(c).toMatchObject({ balance: '0', state: 'closed' });
    expect(net.closed.find((c: { option_id: string }) => c.option_id === soldExpired.toString()).expired).toBe(true);
  });

  it('every holding has a positive balance and every closed entry a zero one', async () => {
    const res = await request(app).get(`/api/portfolio/${holder}`).expect(200);
    const [net] = res.body.networks;
    for (const h of net.holdings) expect(BigInt(h.balance) > 0n).toBe(true);
    for (const c of net.closed) expect(c.balance).toBe('0');
  });
});
