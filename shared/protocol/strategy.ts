import type { OptionType, Structure } from '../../wire/src/protocol/constants';

/** Names of the spec's strategy recipes, plus `custom` for anything else. */
export const STRATEGY_NAMES = [
  'single',
  'capped_call',
  'capped_put',
  'straddle',
  'strangle',
  'butterfly',
  'condor',
  'iron_butterfly',
  'iron_condor',
  'risk_reversal',
  'collar',
  'custom',
] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** What recognition looks at: a leg without pair, expiry or polarity. */
export interface StrategyLeg {
  option_type: OptionType;
  structure: Structure;
  strike_wad: bigint;
  amount: bigint;
}

/** `call`/`put` fix the type; `same` legs share one type, whichever it is; `any` accepts either. */
type TypeRule = 'call' | 'put' | 'same' | 'any';

interface LegPattern {
  type: TypeRule;
  structure: Structure;
  /** Amount as a multiple of the base (1x) amount. */
  multiple: bigint;
}

interface Recipe {
  name: Exclude<StrategyName, 'custom'>;
  legs: LegPattern[];
  /** Strike rule over the legs in recipe order. */
  strikes: (k: bigint[]) => boolean;
}

const leg = (type: TypeRule, structure: Structure, multiple = 1n): LegPattern => ({ type, structure, multiple });
const ascending = (k: bigint[]) => k.every((v, i) => i === 0 || k[i - 1] < v);

/** The spec's recipes for buying (`b_is_buy`); selling uses the same legs with `a_is_buy`. */
const RECIPES: Recipe[] = [
  { name: 'single', legs: [leg('any', 0)], strikes: () => true },
  { name: 'capped_call', legs: [leg('call', 0), leg('call', 1)], strikes: ascending },
  { name: 'capped_put', legs: [leg('put', 0), leg('put', 1)], strikes: ([high, low]) => high > low },
  { name: 'straddle', legs: [leg('call', 0), leg('put', 0)], strikes: ([a, b]) => a === b },
  { name: 'strangle', legs: [leg('put', 0), leg('call', 0)], strikes: ascending },
  { name: 'butterfly', legs: [leg('same', 0), leg('same', 1, 2n), leg('same', 0)], strikes: ascending },
  { name: 'condor', legs: [leg('same', 0), leg('same', 1), leg('same', 1), leg('same', 0)], strikes: ascending },
  {
    name: 'iron_butterfly',
    legs: [leg('put', 0), leg('put', 1), leg('call', 1), leg('call', 0)],
    strikes: ([w1, b1, b2, w2]) => w1 < b1 && b1 === b2 && b2 < w2,
  },
  { name: 'iron_condor', legs: [leg('put', 0), leg('put', 1), leg('call', 1), leg('call', 0)], strikes: ascending },
  { name: 'risk_reversal', legs: [leg('put', 1), leg('call', 0)], strikes: ascending },
  { name: 'collar', legs: [leg('put', 0), leg('call', 1)], strikes: ascending },
];

const TYPE_OF: Record<'call' | 'put', OptionType> = { call: 0, put: 1 };

function matches(recipe: Recipe, ordered: readonly StrategyLeg[]): boolean {
  const base = ordered[recipe.legs.findIndex((p) => p.multiple === 1n)].amount;
  const sameType = ordered[recipe.legs.findIndex((p) => p.type === 'same')]?.option_type;
  const legsMatch = recipe.legs.every((p, i) => {
    const l = ordered[i];
    if (l.structure !== p.structure || l.amount !== base * p.multiple) return false;
    if (p.type === 'call' || p.type === 'put') return l.option_type === TYPE_OF[p.type];
    return p.type === 'any' || l.option_type === sameType;
  });
  return legsMatch && recipe.strikes(ordered.map((l) => l.strike_wad));
}

function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield [...items];
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const tail of permutations(rest)) yield [items[i], ...tail];
  }
}

/**
 * Names the strategy the legs form (polarity-free: the same legs name the same strategy
 * bought or sold). The name depends on the set of legs, not the order they are listed in;
 * directions still follow the listed order. Anything that fits no recipe is `custom`.
 */
export function recognizeStrategy(legs: readonly StrategyLeg[]): StrategyName {
  for (const recipe of RECIPES) {
    if (recipe.legs.length !== legs.length) continue;
    for (const ordered of permutations(legs)) if (matches(recipe, ordered)) return recipe.name;
  }
  return 'custom';
}
