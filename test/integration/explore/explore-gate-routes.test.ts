import type { NamedRouteSpec } from '../../../api/http/route-spec';
import { describeExploreGate } from '../../support/explore-gate-suite';
import { randomAddress } from '../../support/fixtures';
import { request } from '../../support/http';

/** The Explore gate on the `explore-clob` routes docs/EXPLORE.md lists (test/support/explore-gate-suite.ts). */
const PAIR = randomAddress();
const pathOf = (c: NamedRouteSpec) => `${c.path.replace(':address', PAIR)}?chain_id=31337`;

describeExploreGate({
  action: 'explore-clob',
  limit: 3,
  call: (app, c) => (c.method === 'post' ? request(app).post(pathOf(c)) : request(app).get(pathOf(c))),
  // A pair the indexer would have found: the routes answer it (empty) once the gate lets them through.
  seed: async (env) => {
    await env.db.query(
      `INSERT INTO indexer_pairs (chain_id, address, factory, token0, token1, premium_token, created_block, created_block_hash, created_log_index, tx_hash)
       VALUES (31337, $1, $2, $3, $4, $4, 1, $5, 0, $5)`,
      [PAIR, randomAddress(), randomAddress(), randomAddress(), `0x${'ab'.repeat(32)}`],
    );
  },
});
