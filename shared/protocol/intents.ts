import { getAddress, type Address } from 'viem';
import { MAX_LEGS, UINT144_MAX, type OptionType, type Structure } from './constants';
import { isRecord, readAddress, readArray, readTimestamp, readUint } from './fields';
import { at, Problems } from './problems';

/** One leg of a quote, normalised: checksummed address, numeric enums, bigint amounts. */
export interface Intent {
  pair6909_contract: Address;
  option_type: OptionType;
  structure: Structure;
  /** 0 = American; equal to expiry_timestamp = European. */
  start_exercise_timestamp: number;
  expiry_timestamp: number;
  strike_wad: bigint;
  amount: bigint;
}

/** An intent as JSON carries it: big integers as decimal strings. */
export interface IntentJson {
  pair6909_contract: string;
  option_type: OptionType;
  structure: Structure;
  start_exercise_timestamp: number;
  expiry_timestamp: number;
  strike_wad: string;
  amount: string;
}

/** The on-chain `Leg` struct (EIP-712 type `Leg`), field for field. */
export interface Leg {
  pair6909Contract: Address;
  optionType: number;
  structure: number;
  startExerciseTimestamp: number;
  expiryTimestamp: number;
  strikeWad: bigint;
  amount: bigint;
}

const REQUIRED = [
  'pair6909_contract',
  'option_type',
  'structure',
  'start_exercise_timestamp',
  'expiry_timestamp',
  'strike_wad',
  'amount',
] as const;

/** Reads `call`|`put`|0|1 (names in any case). */
export function readOptionType(v: unknown, path: string, problems: Problems): OptionType | undefined {
  const s = typeof v === 'string' ? v.toLowerCase() : v;
  if (s === 'call' || s === 0) return 0;
  if (s === 'put' || s === 1) return 1;
  problems.add(path, 'must be "call", "put", 0 (call) or 1 (put)');
  return undefined;
}

/** Reads 0|"a"|1|"b" (letters in any case). */
export function readStructure(v: unknown, path: string, problems: Problems): Structure | undefined {
  const s = typeof v === 'string' ? v.toLowerCase() : v;
  if (s === 0 || s === 'a' || s === '0') return 0;
  if (s === 1 || s === 'b' || s === '1') return 1;
  problems.add(path, 'must be 0 or "a" (follows polarity), or 1 or "b" (flips the leg)');
  return undefined;
}

type PartialIntent = { [K in keyof Intent]?: Intent[K] };

function readIntent(raw: unknown, path: string, problems: Problems, now: number): PartialIntent {
  if (!isRecord(raw)) {
    problems.add(path, 'must be an object');
    return {};
  }
  for (const key of REQUIRED) if (raw[key] === undefined || raw[key] === null) problems.add(at(path, key), 'is required');
  const p = (key: string) => at(path, key);
  const present = (key: string) => raw[key] !== undefined && raw[key] !== null;
  const out: PartialIntent = {};
  if (present('pair6909_contract')) out.pair6909_contract = readAddress(raw.pair6909_contract, p('pair6909_contract'), problems);
  if (present('option_type')) out.option_type = readOptionType(raw.option_type, p('option_type'), problems);
  if (present('structure')) out.structure = readStructure(raw.structure, p('structure'), problems);
  if (present('strike_wad')) {
    out.strike_wad = readUint(raw.strike_wad, p('strike_wad'), problems, { min: 1n, max: UINT144_MAX, what: 'uint144' });
  }
  if (present('amount')) out.amount = readUint(raw.amount, p('amount'), problems, { min: 1n, what: 'uint256' });
  if (present('expiry_timestamp')) {
    out.expiry_timestamp = readTimestamp(raw.expiry_timestamp, p('expiry_timestamp'), problems);
    if (out.expiry_timestamp !== undefined && out.expiry_timestamp <= now) {
      problems.add(p('expiry_timestamp'), `must be in the future (now is ${now})`);
    }
  }
  if (present('start_exercise_timestamp')) {
    const start = readTimestamp(raw.start_exercise_timestamp, p('start_exercise_timestamp'), problems);
    if (start !== undefined && start !== 0 && out.expiry_timestamp !== undefined && start !== out.expiry_timestamp) {
      problems.add(
        p('start_exercise_timestamp'),
        'must be 0 (American: exercisable any time until expiry) or equal to expiry_timestamp (European: expiry day only)',
      );
    } else {
      out.start_exercise_timestamp = start;
    }
  }
  return out;
}

/**
 * Parses and normalises a quote's legs; throws ValidationError naming every bad field
 * (`intents[1].strike_wad`), including the cross-leg rules: one pair, one expiry.
 */
export function parseIntents(raw: unknown, opts: { now: number; path?: string }): Intent[] {
  const problems = new Problems();
  const intents = readIntentList(raw, opts.path ?? 'intents', problems, opts.now);
  problems.throwIfAny();
  return intents as Intent[];
}

/** Like parseIntents but records problems into a caller's collector (for larger documents). */
export function readIntentList(raw: unknown, path: string, problems: Problems, now: number): PartialIntent[] {
  const list = readArray(raw, path, problems, 1, MAX_LEGS);
  if (!list) return [];
  const legs = list.map((item, i) => readIntent(item, at(path, i), problems, now));
  const [first] = legs;
  legs.forEach((leg, i) => {
    if (i === 0) return;
    if (first.pair6909_contract !== undefined && leg.pair6909_contract !== undefined && leg.pair6909_contract !== first.pair6909_contract) {
      problems.add(at(at(path, i), 'pair6909_contract'), `all legs must use the same pair6909_contract as ${at(path, 0)} (${first.pair6909_contract})`);
    }
    if (first.expiry_timestamp !== undefined && leg.expiry_timestamp !== undefined && leg.expiry_timestamp !== first.expiry_timestamp) {
      problems.add(at(at(path, i), 'expiry_timestamp'), `all legs must share the expiry of ${at(path, 0)} (${first.expiry_timestamp})`);
    }
  });
  return legs;
}

/** The JSON form of an intent (decimal strings for big integers). */
export function intentToJson(i: Intent): IntentJson {
  return {
    pair6909_contract: i.pair6909_contract,
    option_type: i.option_type,
    structure: i.structure,
    start_exercise_timestamp: i.start_exercise_timestamp,
    expiry_timestamp: i.expiry_timestamp,
    strike_wad: i.strike_wad.toString(),
    amount: i.amount.toString(),
  };
}

/** The on-chain Leg struct of an intent. */
export function intentToLeg(i: Intent): Leg {
  return {
    pair6909Contract: i.pair6909_contract,
    optionType: i.option_type,
    structure: i.structure,
    startExerciseTimestamp: i.start_exercise_timestamp,
    expiryTimestamp: i.expiry_timestamp,
    strikeWad: i.strike_wad,
    amount: i.amount,
  };
}

/**
 * The on-chain Leg struct of a leg as the API's JSON gives it (a quote's `legs`): for clients
 * that sign offers from an rfq_request. Trusts its input; servers parse with parseIntents.
 */
export function jsonLegToLeg(j: Omit<IntentJson, 'option_type' | 'structure'> & { option_type: number; structure: number }): Leg {
  return {
    pair6909Contract: getAddress(j.pair6909_contract),
    optionType: j.option_type,
    structure: j.structure,
    startExerciseTimestamp: j.start_exercise_timestamp,
    expiryTimestamp: j.expiry_timestamp,
    strikeWad: BigInt(j.strike_wad),
    amount: BigInt(j.amount),
  };
}

/** The intent of an on-chain Leg struct (inverse of intentToLeg). */
export function legToIntent(l: Leg): Intent {
  if ((l.optionType !== 0 && l.optionType !== 1) || (l.structure !== 0 && l.structure !== 1)) {
    throw new RangeError(`leg has option type ${l.optionType} and structure ${l.structure}; both must be 0 or 1`);
  }
  return {
    pair6909_contract: l.pair6909Contract,
    option_type: l.optionType,
    structure: l.structure,
    start_exercise_timestamp: l.startExerciseTimestamp,
    expiry_timestamp: l.expiryTimestamp,
    strike_wad: l.strikeWad,
    amount: l.amount,
  };
}
