/**
 * The `eth_getLogs` span: adaptive, because providers cap it in blocks, in results or in bytes,
 * and the right span for one contract's history changes as its activity does.
 */

/** Number of blocks in a provider's "try this range" hint, or null when the message has none. */
export function parseSuggestedSpan(message: string): number | null {
  // "[0x10, 0x2f]" style: the provider named a range that works.
  const bracket = /\[\s*(0x[0-9a-f]+|\d+)\s*,\s*(0x[0-9a-f]+|\d+)\s*\]/i.exec(message);
  if (bracket && /range|try|work/i.test(message)) {
    const span = Number(BigInt(bracket[2])) - Number(BigInt(bracket[1])) + 1;
    if (span > 0) return span;
  }
  // "(5000 > 2000)": asked > allowed.
  const comparison = /\(\s*\d[\d,]*\s*>\s*(\d[\d,]*)\s*\)/.exec(message);
  if (comparison) return positive(comparison[1]);
  // A bound next to a range word: "max range: 2000", "limited to a 10,000 block range",
  // "maximum block range: 50000", "at most 1000 blocks", "max is 10k blocks", "distance: 5000".
  const bound = /(?:range|blocks?|distance|maximum|max|most|exceeds?|limited to(?: a)?|up to(?: a)?|is set to)\W{0,3}(?:is\s+|of\s+)?(\d[\d,.]*k?)\b/i.exec(
    message,
  );
  if (bound) {
    const n = positive(bound[1]);
    // One less than the bound fits every reading of it (inclusive or exclusive of the last block).
    if (n !== null) return Math.max(1, n - 1);
  }
  return null;
}

function positive(text: string): number | null {
  const k = /k$/i.test(text);
  const n = Number(text.replace(/[,.]|k$/gi, '')) * (k ? 1000 : 1);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export interface RangeSizer {
  /** The span to ask for next. */
  readonly span: number;
  /** A range of `span` blocks returned `logs` logs. */
  onSuccess(span: number, logs: number): void;
  /** A range of `span` blocks was refused; `suggested` is the provider's hint, if any. */
  onTooLarge(span: number, suggested: number | null): void;
}

/**
 * Grows the span after each success (doubling until the first refusal, then gently), shrinks
 * it on a refusal (to the provider's hint, which then caps it for good, or by half), and keeps
 * a range's log count near `targetLogs` so one batch never holds more than about that many logs.
 */
export function createRangeSizer(opts: { initial: number; max: number; targetLogs: number }): RangeSizer {
  let span = Math.max(1, Math.min(opts.initial, opts.max));
  let ceiling = opts.max;
  let refused = false;
  return {
    get span() {
      return span;
    },
    onSuccess(used, logs) {
      const growth = refused ? 1.25 : 2;
      let next = Math.ceil(used * growth);
      if (logs > 0) next = Math.min(next, Math.floor((used * opts.targetLogs) / logs));
      span = Math.max(1, Math.min(ceiling, next));
    },
    onTooLarge(used, suggested) {
      refused = true;
      if (suggested !== null && suggested < used) {
        ceiling = Math.max(1, Math.min(ceiling, suggested));
        span = ceiling;
      } else {
        span = Math.max(1, Math.floor(used / 2));
      }
    },
  };
}
