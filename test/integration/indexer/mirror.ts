import { getAddress, type Address } from 'viem';
import type { TestChain } from '../../support/chain';
import type { TestEnv } from '../../support/test-env';
import { balanceOf } from './harness';

/**
 * Checks that the database mirrors the chain exactly: every log of the watched contracts up to
 * `toBlock` is stored once (no gap, no duplicate), and every stored balance equals balanceOf.
 */
export async function expectMirrorsChain(
  chain: TestChain,
  env: TestEnv,
  toBlock: number,
  /** The mothership the registry names, when a test points it elsewhere. */
  mothership: Address = chain.addresses.mothership,
): Promise<{ logs: number }> {
  const pairs: { address: Address }[] = await env.db.query(`SELECT address FROM indexer_pairs WHERE chain_id = $1`, [chain.chainId]);
  const addresses = [chain.addresses.pairFactory, mothership, ...pairs.map((p) => p.address)];
  const logs = await chain.rpc<{ blockHash: string; logIndex: string; blockNumber: string }[]>('eth_getLogs', [
    { fromBlock: '0x0', toBlock: `0x${toBlock.toString(16)}`, address: addresses },
  ]);
  const expected = logs.map((l) => `${Number(l.blockNumber)}:${l.blockHash}:${Number(l.logIndex)}`).sort();
  // Transfers are stored in indexer_transfers, every other log in indexer_events.
  const stored: { k: string }[] = await env.db.query(
    `SELECT block_number || ':' || block_hash || ':' || log_index AS k FROM indexer_events WHERE chain_id = $1 AND block_number <= $2
     UNION ALL
     SELECT block_number || ':' || block_hash || ':' || log_index FROM indexer_transfers WHERE chain_id = $1 AND block_number <= $2`,
    [chain.chainId, toBlock],
  );
  // Approval and OperatorSet are not read; the reference flows here never emit them. UNION ALL keeps duplicates visible.
  expect(stored.map((s) => s.k).sort()).toEqual(expected);

  const balances: { holder: Address; pair: Address; option_id: string; balance: string }[] = await env.db.query(
    `SELECT holder, pair, option_id::text, balance::text FROM indexer_balances WHERE chain_id = $1`,
    [chain.chainId],
  );
  for (const b of balances) {
    expect(`${b.holder}/${b.option_id}: ${b.balance}`).toBe(
      `${b.holder}/${b.option_id}: ${await balanceOf(chain, getAddress(b.pair), b.holder, BigInt(b.option_id))}`,
    );
  }
  return { logs: expected.length };
}
