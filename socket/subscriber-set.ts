/**
 * The channels of one topic on a replica. Most topics have one subscriber here (a taker's own
 * `rfq_stream:<token>`, a maker's own `rfq_maker:<org>`), and a Set with one entry costs about
 * 220 bytes, once per topic: so the first subscriber sits in a field and a Set is made only
 * for a second. Delivery order is not promised between the subscribers of a topic.
 */
export class SubscriberSet<T> {
  private one: T | null = null;
  private many: Set<T> | null = null;

  add(item: T): void {
    if (this.many) this.many.add(item);
    else if (this.one === null || this.one === item) this.one = item;
    else {
      this.many = new Set([this.one, item]);
      this.one = null;
    }
  }

  delete(item: T): boolean {
    if (this.many) {
      if (!this.many.delete(item)) return false;
      if (this.many.size === 0) this.many = null;
      return true;
    }
    if (this.one !== item) return false;
    this.one = null;
    return true;
  }

  get size(): number {
    return this.many ? this.many.size : this.one === null ? 0 : 1;
  }

  /**
   * Calls `fn` for each subscriber, as a Set's own iteration does: one that `fn` removes before
   * its turn is skipped, one added during the walk may be visited.
   */
  forEach(fn: (item: T) => void): void {
    if (this.many) {
      for (const item of this.many) fn(item);
    } else if (this.one !== null) fn(this.one);
  }

  /** A copy: callers may remove subscribers while they walk it. */
  values(): T[] {
    if (this.many) return [...this.many];
    return this.one === null ? [] : [this.one];
  }
}
