import type { DataSource } from 'typeorm';
import type { EventPublisher } from '../events';
import { topics } from '../events';
import type { Redis } from '../platform/redis';
import { ExploreLoanWatchers } from './loan-watchers';
import { LoanService } from './loan.service';

/** At most this many at-risk loans per network in a snapshot; the at-risk route pages the rest. */
const SNAPSHOT_AT_RISK = 100;

/**
 * Opens a minted loan stream (the `loans.stream_open` job): its first event is
 * `explore_loan_snapshot` (the summary and the at-risk loans of its networks), and only then
 * is it registered as a watcher, so every live `explore_loan_event` follows the snapshot.
 */
export async function openLoanStream(
  deps: { db: DataSource; redis: Redis; prefix: string; events: EventPublisher },
  p: { token_hash: string; chain_ids: number[]; expires_at_ms: number },
): Promise<void> {
  if (p.expires_at_ms <= Date.now()) return;
  const reads = new LoanService({ db: deps.db });
  const summary = p.chain_ids.length === 1 ? await reads.summary({ chain_id: p.chain_ids[0] }) : await reads.summary({});
  const atRisk = [];
  for (const chainId of p.chain_ids) atRisk.push(...(await reads.atRisk({ chain_id: chainId, limit: SNAPSHOT_AT_RISK })).items);
  await deps.events.publish(
    topics.exploreLoanStream(p.token_hash),
    'explore_loan_snapshot',
    { chain_id: p.chain_ids[0] ?? 0, chain_ids: p.chain_ids, summary: summary.networks, at_risk: atRisk, at: new Date().toISOString() },
    { idempotencyKey: `loan-snapshot:${p.token_hash}` },
  );
  const watchers = new ExploreLoanWatchers(deps.redis, deps.prefix);
  for (const chainId of p.chain_ids) await watchers.add(chainId, p.token_hash, p.expires_at_ms);
}
