import fc from 'fast-check';
import { ChannelSlots } from '../../../socket/channel-slots';
import { SubscriberSet } from '../../../socket/subscriber-set';

const ch = (topic: string) => ({ topic });

describe("ChannelSlots (a connection's channels, one in a field, more in a Map)", () => {
  it('finds, replaces and removes channels by topic, one or many', () => {
    const slots = new ChannelSlots<{ topic: string }>();
    const a = ch('a');
    const b = ch('b');
    slots.set(a);
    expect([slots.size, slots.get('a'), slots.get('b')]).toEqual([1, a, undefined]);
    const a2 = ch('a');
    slots.set(a2);
    expect([slots.size, slots.get('a')]).toEqual([1, a2]);
    // an older channel of the topic is not removed in place of the newer one
    expect(slots.delete(a)).toBe(false);
    slots.set(b);
    expect([slots.size, slots.get('a'), slots.get('b')]).toEqual([2, a2, b]);
    expect(slots.delete(a2)).toBe(true);
    expect([slots.size, slots.get('a'), slots.get('b')]).toEqual([1, undefined, b]);
    expect(slots.delete(b)).toBe(true);
    expect([slots.size, slots.values()]).toEqual([0, []]);
  });

  it('behaves as a Map keyed by topic under any sequence of joins and leaves', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.constantFrom('a', 'b', 'c')), { maxLength: 40 }), (ops) => {
        const slots = new ChannelSlots<{ topic: string }>();
        const model = new Map<string, { topic: string }>();
        for (const [join, topic] of ops) {
          if (join) {
            const c = ch(topic);
            slots.set(c);
            model.set(topic, c);
          } else {
            const current = model.get(topic);
            expect(slots.delete(current ?? ch(topic))).toBe(current !== undefined);
            model.delete(topic);
          }
          expect(slots.size).toBe(model.size);
          expect(new Set(slots.values())).toEqual(new Set(model.values()));
          for (const t of ['a', 'b', 'c']) expect(slots.get(t)).toBe(model.get(t));
        }
      }),
    );
  });
});

describe("SubscriberSet (a topic's channels, one in a field, more in a Set)", () => {
  it('behaves as a Set under any sequence of adds and deletes', () => {
    const items = [{ n: 1 }, { n: 2 }, { n: 3 }];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 2 })), { maxLength: 40 }), (ops) => {
        const set = new SubscriberSet<{ n: number }>();
        const model = new Set<{ n: number }>();
        for (const [add, i] of ops) {
          if (add) {
            set.add(items[i]);
            model.add(items[i]);
          } else {
            expect(set.delete(items[i])).toBe(model.delete(items[i]));
          }
          expect(set.size).toBe(model.size);
          expect(new Set(set.values())).toEqual(model);
          const seen: { n: number }[] = [];
          set.forEach((x) => seen.push(x));
          expect(new Set(seen)).toEqual(model);
          expect(seen).toHaveLength(model.size);
        }
      }),
    );
  });

  it('lets a subscriber remove itself while the set is walked', () => {
    const set = new SubscriberSet<string>();
    for (const x of ['a', 'b', 'c']) set.add(x);
    const seen: string[] = [];
    set.forEach((x) => {
      seen.push(x);
      set.delete(x);
    });
    expect([seen.sort(), set.size]).toEqual([['a', 'b', 'c'], 0]);
  });
});
