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
