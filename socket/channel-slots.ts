/**
 * The channels one connection has joined, by topic as the client wrote it. Nearly every
 * connection joins one topic (a taker its `rfq_stream`, a maker its `rfq_maker`), and a Map
 * with one entry costs about 250 bytes: at 100,000 connections that is most of a replica's own
 * share of a connection. So the first channel sits in a field, and a Map is made only when a
 * second topic is joined (and dropped again once it empties).
 */
export class ChannelSlots<C extends { readonly topic: string }> {
  private one: C | null = null;
  private many: Map<string, C> | null = null;

  get(topic: string): C | undefined {
    if (this.many) return this.many.get(topic);
    return this.one !== null && this.one.topic === topic ? this.one : undefined;
  }

  /** Puts `ch` under its topic, replacing whatever was there. */
  set(ch: C): void {
    if (this.many) {
      this.many.set(ch.topic, ch);
    } else if (this.one === null || this.one.topic === ch.topic) {
      this.one = ch;
    } else {
      this.many = new Map([
        [this.one.topic, this.one],
        [ch.topic, ch],
      ]);
      this.one = null;
    }
  }

  /** Removes `ch` if it is the one under its topic (a newer channel there stays). */
  delete(ch: C): boolean {
    if (this.many) {
      if (this.many.get(ch.topic) !== ch) return false;
      this.many.delete(ch.topic);
      if (this.many.size === 0) this.many = null;
      return true;
    }
    if (this.one !== ch) return false;
    this.one = null;
    return true;
  }

  get size(): number {
    return this.many ? this.many.size : this.one === null ? 0 : 1;
  }

  /** A copy: callers may remove channels while they walk it. */
  values(): C[] {
    if (this.many) return [...this.many.values()];
    return this.one === null ? [] : [this.one];
  }
}
