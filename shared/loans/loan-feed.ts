import type { DataSource } from 'typeorm';
import { exploreLoanStreamTopic, topics, type EventPublisher } from '../events';
import type { ExploreFeed, SnapshotBlock } from '../explore';
import { LoanRepository } from './loan.repository';
import { LoanService } from './loan.service';

/** The loan feed follows a network's whole lending market: one subject per network. */
export const LOAN_FEED_SUBJECT = 'market';

/** At most this many at-risk loans in a snapshot; the at-risk route pages the rest. */
const SNAPSHOT_AT_RISK = 100;

type LoanSnapshot = { block: SnapshotBlock; chain_id: number; summary: unknown; at_risk: unknown[] };

/**
 * The live loan feed of one network (`explore_loan_stream:<token>`), on the shared stream
 * machinery (shared/explore): its snapshot is the network's summary and its at-risk loans, read
 * in one repeatable-read transaction with the indexed block they reflect; later loan events,
 * price updates and at-risk crossings follow as `explore_loan_event` (indexer/publish/loan-publisher.ts).
 */
export const loanFeed: ExploreFeed<LoanSnapshot> = {
  name: 'loan',
  streamKind: 'explore_loan',
  topic: (token) => exploreLoanStreamTopic(token),
  async snapshot(db: DataSource, chainId: number) {
    return db.transaction('REPEATABLE READ', async (m) => {
      // One snapshot, one transaction: its reads run in turn (pg runs one query at a time per connection).
      const reads = new LoanService({ db: m as unknown as DataSource, oneConnection: true });
      const head = await new LoanRepository(m).indexedHead(chainId);
      const block: SnapshotBlock = head
        ? {
            number: Number(head.block_number),
            hash: head.block_hash,
            time: head.block_timestamp === null ? null : new Date(Number(head.block_timestamp) * 1000).toISOString(),
          }
        : { number: -1, hash: null, time: null };
      const summary = await reads.summary({ chain_id: chainId });
      const atRisk = await reads.atRisk({ chain_id: chainId, limit: SNAPSHOT_AT_RISK });
      return { block, chain_id: chainId, summary: summary.networks[0] ?? null, at_risk: atRisk.items };
    });
  },
  tokenTopic: (tokenHash) => topics.exploreLoanStream(tokenHash),
  async publishSnapshot(events: EventPublisher, to, snap, reason, idempotencyKey) {
    await events.publish(to as ReturnType<typeof topics.exploreLoanStream>, 'explore_loan_snapshot', { ...snap, reason } as never, { idempotencyKey });
  },
  async publishRollback(events: EventPublisher, to, chainId, _subject, notice, idempotencyKey) {
    await events.publish(
      to as ReturnType<typeof topics.exploreLoanStream>,
      'explore_loan_event',
      { chain_id: chainId, event: 'reorg', ...notice },
      { idempotencyKey },
    );
  },
};
