import type { NamedRouteSpec } from '../../../api/http/route-spec';
import { describeExploreGate } from '../../support/explore-gate-suite';
import { randomAddress } from '../../support/fixtures';
import { request } from '../../support/http';

/** The Explore gate on the `explore-loan` routes docs/LOANS.md lists (test/support/explore-gate-suite.ts). */
const pathOf = (c: NamedRouteSpec) => (c.path.includes(':id') ? c.path.replace(':id', '31337-1') : `${c.path}?chain_id=31337`);

describeExploreGate({
  action: 'explore-loan',
  limit: 2,
  call: (app, c) => (c.method === 'post' ? request(app).post(c.path).send({ chain_id: 31337 }) : request(app).get(pathOf(c))),
  // A loan the indexer would have written: the routes answer it once the gate lets them through.
  seed: async (env) => {
    const [a, b, c, d] = [randomAddress(), randomAddress(), randomAddress(), randomAddress()];
    await env.db.query(
      `INSERT INTO indexer_loans (chain_id, loan_id, market, borrower, lender, collateral_token, collateral_amount, debt_token, principal, principal_outstanding,
         rate_bps, threshold_bps, maturity, state, opened_block, opened_block_hash, opened_log_index, opened_at, tx_hash, last_block, last_log_index)
       VALUES (31337, 1, $1, $2, $3, $4, 1000, $5, 500, 500, 500, 8000, 2000000000, 'active', 1, $6, 0, 1700000000, $6, 1, 0)`,
      [a, b, c, d, randomAddress(), `0x${'ab'.repeat(32)}`],
    );
  },
});
