import { exploreClobStreamTopic, topics, type EventPublisher } from '../../events';
import type { ExploreFeed } from '../explore-feed';
import { ClobExploreService } from './clob-explore.service';

type ClobSnapshot = Awaited<ReturnType<ClobExploreService['snapshot']>>;

/**
 * The live feed of one CLOB (`explore_clob_stream:<token>`): its snapshot is the book (20
 * levels a side per series) and the latest 50 activity lines, with the block they reflect.
 */
export const clobFeed: ExploreFeed<ClobSnapshot> = {
  name: 'clob',
  streamKind: 'explore_clob',
  topic: (token) => exploreClobStreamTopic(token),
  snapshot: (db, chainId, subject) => new ClobExploreService(db).snapshot(chainId, subject),
  tokenTopic: (tokenHash) => topics.exploreClobStream(tokenHash),
  async publishSnapshot(events: EventPublisher, to, snap, reason, idempotencyKey) {
    await events.publish(to as ReturnType<typeof topics.exploreClobStream>, 'explore_clob_snapshot', { ...snap, reason }, { idempotencyKey });
  },
  async publishRollback(events: EventPublisher, to, chainId, subject, notice, idempotencyKey) {
    const payload = { chain_id: chainId, clob: subject, event: 'reorg', ...notice };
    await events.publish(to as ReturnType<typeof topics.exploreClobStream>, 'explore_clob_event', payload, { idempotencyKey });
  },
};
