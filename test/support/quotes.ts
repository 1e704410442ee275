import { zeroAddress } from 'viem';

/** The pair (CLOB) address of the fixture network (networkFile's opshuns_core). */
export const FIXTURE_PAIR = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
export const FIXTURE_USDC = '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853';

type Leg = { type: 'call' | 'put'; structure: 0 | 1; strike: bigint; mult?: bigint };

/** Intents in the spec's JSON shape for the given legs, one expiry a day out. */
export function intents(legs: Leg[], opts: { pair?: string; expiry?: number; base?: bigint; european?: boolean } = {}) {
  const expiry = opts.expiry ?? Math.floor(Date.now() / 1000) + 86400;
  const base = opts.base ?? 10n ** 18n;
  return legs.map((l) => ({
    pair6909_contract: opts.pair ?? FIXTURE_PAIR,
    option_type: l.type,
    structure: l.structure,
    start_exercise_timestamp: opts.european ? expiry : 0,
    expiry_timestamp: expiry,
    strike_wad: (l.strike * 10n ** 18n).toString(),
    amount: (base * (l.mult ?? 1n)).toString(),
  }));
}

/** A standard create body. */
export function quoteBody(taker: string, legs: Leg[], extra: Record<string, unknown> = {}) {
  return { chain_id: 31337, taker_address: taker, polarity: 'b_is_buy', referrer: zeroAddress, expires_in: 60, intents: intents(legs), ...extra };
}

/** The spec's strategy table: legs in listed order, and directions when bought. */
export const STRATEGY_ROWS: { name: string; strategy: string; legs: Leg[]; buy: number[] }[] = [
  { name: 'single call', strategy: 'single', legs: [{ type: 'call', structure: 0, strike: 3000n }], buy: [1] },
  { name: 'single put', strategy: 'single', legs: [{ type: 'put', structure: 0, strike: 3000n }], buy: [1] },
  {
    name: 'capped call',
    strategy: 'capped_call',
    legs: [
      { type: 'call', structure: 0, strike: 3000n },
      { type: 'call', structure: 1, strike: 3500n },
    ],
    buy: [1, 0],
  },
  {
    name: 'capped put, high first',
    strategy: 'capped_put',
    legs: [
      { type: 'put', structure: 0, strike: 3000n },
      { type: 'put', structure: 1, strike: 2500n },
    ],
    buy: [1, 0],
  },
  {
    name: 'capped put, low first',
    strategy: 'capped_put',
    legs: [
      { type: 'put', structure: 1, strike: 2500n },
      { type: 'put', structure: 0, strike: 3000n },
    ],
    buy: [0, 1],
  },
  {
    name: 'straddle',
    strategy: 'straddle',
    legs: [
      { type: 'call', structure: 0, strike: 3000n },
      { type: 'put', structure: 0, strike: 3000n },
    ],
    buy: [1, 1],
  },
  {
    name: 'strangle',
    strategy: 'strangle',
    legs: [
      { type: 'put', structure: 0, strike: 2500n },
      { type: 'call', structure: 0, strike: 3500n },
    ],
    buy: [1, 1],
  },
  {
    name: 'butterfly',
    strategy: 'butterfly',
    legs: [
      { type: 'call', structure: 0, strike: 2500n },
      { type: 'call', structure: 1, strike: 3000n, mult: 2n },
      { type: 'call', structure: 0, strike: 3500n },
    ],
    buy: [1, 0, 1],
  },
  {
    name: 'condor',
    strategy: 'condor',
    legs: [
      { type: 'put', structure: 0, strike: 2000n },
      { type: 'put', structure: 1, strike: 2500n },
      { type: 'put', structure: 1, strike: 3500n },
      { type: 'put', structure: 0, strike: 4000n },
    ],
    buy: [1, 0, 0, 1],
  },
  {
    name: 'iron butterfly',
    strategy: 'iron_butterfly',
    legs: [
      { type: 'put', structure: 0, strike: 2500n },
      { type: 'put', structure: 1, strike: 3000n },
      { type: 'call', structure: 1, strike: 3000n },
      { type: 'call', structure: 0, strike: 3500n },
    ],
    buy: [1, 0, 0, 1],
  },
  {
    name: 'iron condor',
    strategy: 'iron_condor',
    legs: [
      { type: 'put', structure: 0, strike: 2000n },
      { type: 'put', structure: 1, strike: 2500n },
      { type: 'call', structure: 1, strike: 3500n },
      { type: 'call', structure: 0, strike: 4000n },
    ],
    buy: [1, 0, 0, 1],
  },
  {
    name: 'risk reversal',
    strategy: 'risk_reversal',
    legs: [
      { type: 'put', structure: 1, strike: 2500n },
      { type: 'call', structure: 0, strike: 3500n },
    ],
    buy: [0, 1],
  },
  {
    name: 'collar',
    strategy: 'collar',
    legs: [
      { type: 'put', structure: 0, strike: 2500n },
      { type: 'call', structure: 1, strike: 3500n },
    ],
    buy: [1, 0],
  },
];
