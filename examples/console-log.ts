/** One line per step of the examples, prefixed with who speaks (operator, maker, taker). */
export const log = (who: string, msg: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`[${who}] ${msg}${Object.keys(extra).length ? ` ${JSON.stringify(extra)}` : ''}\n`);
