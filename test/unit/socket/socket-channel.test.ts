import { parseTopic } from '../../../shared/events';
import type { DeliveredEvent } from '../../../shared/platform/event-bus';
import { Channel, type ChannelOwner } from '../../../socket/socket-channel';

const ev = (seq: number): DeliveredEvent => ({ seq, event: 'rfq_offer', data: `{"seq":${seq}}`, publishedAt: 0 });

function harness(maxHeld = 100) {
  const sent: number[] = [];
  const repairs: number[] = [];
  const ends: string[] = [];
  const owner: ChannelOwner = {
    holdLimit: maxHeld,
    sendEvent: (_ch, e) => sent.push(e.seq),
    repair: (ch) => repairs.push(ch.lastSeq),
    end: (ch, _how, _reason, code) => {
      ends.push(code);
      ch.close();
    },
  };
  const topic = `rfq_stream:${'A'.repeat(43)}`;
  const ch = new Channel(owner, topic, parseTopic(topic)!, '1');
  return { ch, sent, repairs, ends };
}

describe('Channel ordering', () => {
  it('holds live events during a replay, then sends replay and held events once each, in order', () => {
    const { ch, sent } = harness();
    ch.hold();
    ch.onLive(ev(4));
    ch.onLive(ev(5));
    ch.onLive(ev(6));
    expect(sent).toEqual([]);
    ch.release(2, [ev(3), ev(4), ev(5)]);
    expect(sent).toEqual([3, 4, 5, 6]);
    ch.onLive(ev(6));
    ch.onLive(ev(7));
    expect(sent).toEqual([3, 4, 5, 6, 7]);
    expect(ch.lastSeq).toBe(7);
  });

  it('starts after the position when nothing is replayed', () => {
    const { ch, sent } = harness();
    ch.hold();
    ch.onLive(ev(10));
    ch.onLive(ev(11));
    ch.release(10, []);
    expect(sent).toEqual([11]);
  });

  it('asks for a repair on a gap, holds what follows, and resumes in order', () => {
    const { ch, sent, repairs } = harness();
    ch.hold();
    ch.release(0, []);
    ch.onLive(ev(1));
    ch.onLive(ev(4));
    ch.onLive(ev(5));
    expect(sent).toEqual([1]);
    expect(repairs).toEqual([1]);
    expect(ch.state).toBe('replaying');
    ch.release(1, [ev(2), ev(3), ev(4)]);
    expect(sent).toEqual([1, 2, 3, 4, 5]);
    expect(ch.state).toBe('live');
  });

  it('a gap among held events starts another repair and keeps the rest held', () => {
    const { ch, sent, repairs } = harness();
    ch.hold();
    ch.onLive(ev(3));
    ch.onLive(ev(6));
    ch.onLive(ev(7));
    ch.release(2, []);
    expect(sent).toEqual([3]);
    expect(repairs).toEqual([3]);
    ch.release(3, [ev(4), ev(5)]);
    expect(sent).toEqual([3, 4, 5, 6, 7]);
  });

  it('ends itself when too much piles up while it is held, and ignores everything once closed', () => {
    const { ch, sent, ends } = harness(2);
    ch.hold();
    ch.onLive(ev(1));
    ch.onLive(ev(2));
    ch.onLive(ev(3));
    expect(ends).toEqual(['hold_overflow']);
    ch.release(0, [ev(1)]);
    ch.onLive(ev(4));
    expect(sent).toEqual([]);
  });
});

describe('Channel after its topic was subscribed again', () => {
  it('a live channel holds what arrives and repairs from its last seq at once', () => {
    const { ch, sent, repairs } = harness();
    ch.hold();
    ch.release(4, []);
    ch.resubscribed();
    expect(ch.state).toBe('replaying');
    expect(repairs).toEqual([4]);
    ch.onLive(ev(7));
    ch.release(4, [ev(5), ev(6)]);
    expect(sent).toEqual([5, 6, 7]);
    expect(ch.state).toBe('live');
  });

  it('a channel whose history read was in flight reads again once released: what was published between that read and the new subscription is delivered', () => {
    // The race of a cluster failover: a rejoin's read runs on the promoted master before the
    // socket replica's shard subscriber is replaced; events published in between reach neither.
    const { ch, sent, repairs } = harness();
    ch.hold();
    ch.resubscribed();
    expect(repairs).toEqual([]);
    ch.release(10, []);
    expect(repairs).toEqual([10]);
    expect(ch.state).toBe('replaying');
    ch.onLive(ev(14));
    ch.release(10, [ev(11), ev(12), ev(13)]);
    expect(sent).toEqual([11, 12, 13, 14]);
    // once: a later release (a gap repair) owes no further read
    ch.onLive(ev(16));
    expect(repairs).toEqual([10, 14]);
    ch.release(14, [ev(15), ev(16)]);
    expect(repairs).toEqual([10, 14]);
    expect(ch.state).toBe('live');
  });

  it('a gap repair started after the resubscription is the read it was owed: no second one', () => {
    const { ch, sent, repairs } = harness();
    ch.hold();
    ch.onLive(ev(3));
    ch.onLive(ev(6));
    ch.resubscribed();
    ch.release(2, []);
    expect(sent).toEqual([3]);
    expect(repairs).toEqual([3]);
    ch.release(3, [ev(4), ev(5)]);
    expect(sent).toEqual([3, 4, 5, 6]);
    expect(repairs).toEqual([3]);
    expect(ch.state).toBe('live');
  });

  it('a closed channel does nothing', () => {
    const { ch, repairs } = harness();
    ch.close();
    ch.resubscribed();
    ch.release(1, []);
    expect(repairs).toEqual([]);
  });
});
