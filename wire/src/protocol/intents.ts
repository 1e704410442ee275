import { getAddress, type Address } from 'viem';
import { z } from 'zod';
import {
  decimalUint,
  evmAddress,
  parsedAt,
  parseOrThrow,
  rebuiltWhenChanged,
  required,
  ruleIssue,
  sizedArray,
  spelledAs,
  unixSeconds,
  whenArray,
  whenObject,
} from '../validation';
import { MAX_LEGS, UINT144_MAX, type OptionType, type Structure } from './constants';

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

const OPTION_TYPE_MESSAGE = 'must be "call", "put", 0 (call) or 1 (put)';
const STRUCTURE_MESSAGE = 'must be 0 or "a" (follows polarity), or 1 or "b" (flips the leg)';

/** The spellings of an option type and a structure: the schemas below and the create's fast check (shared/quotes) read these. */
export const OPTION_TYPE_SPELLINGS: readonly (readonly [string | number, OptionType])[] = [
  ['call', 0],
  ['put', 1],
  [0, 0],
  [1, 1],
];
export const STRUCTURE_SPELLINGS: readonly (readonly [string | number, Structure])[] = [
  [0, 0],
  ['a', 0],
  ['0', 0],
  [1, 1],
  ['b', 1],
  ['1', 1],
];

/** `call`|`put`|0|1 (names in any case). */
export const optionTypeSchema = spelledAs<OptionType>(OPTION_TYPE_SPELLINGS, OPTION_TYPE_MESSAGE);

/** 0|"a"|1|"b" (letters in any case, digits as numbers or strings). */
export const structureSchema = spelledAs<Structure>(STRUCTURE_SPELLINGS, STRUCTURE_MESSAGE);

/** One leg's fields, each read on its own; the rules between them come after. */
const intentShape = z
  .object(
    {
      pair6909_contract: required(evmAddress).meta({
        description: 'The pair (CLOB) contract of the token0 / token1 / premium-token triple; not a token. Same for every leg.',
      }),
      option_type: required(optionTypeSchema).meta({ description: '`call` or 0, `put` or 1 (names in any case).' }),
      structure: required(structureSchema).meta({ description: '0 or "a" follows the quote\'s polarity; 1 or "b" flips this leg.' }),
      strike_wad: required(decimalUint({ min: 1n, max: UINT144_MAX, what: 'uint144' })).meta({
        description: 'Strike as a WAD ratio (1e18 = 1), a decimal string from 1 to 2^144-1 (uint144).',
      }),
      amount: required(decimalUint({ min: 1n, what: 'uint256' })).meta({
        description: 'In underlying-token decimals, a decimal string of at least 1; a butterfly body leg uses 2x the base amount.',
      }),
      expiry_timestamp: required(unixSeconds).meta({ description: 'Unix seconds (integer or decimal string), in the future; the same for every leg.' }),
      start_exercise_timestamp: required(unixSeconds).meta({
        description: '0 = American (exercisable until expiry); equal to expiry_timestamp = European.',
      }),
    },
    { message: 'must be an object' },
  )
  .meta({ description: 'One leg. All legs share one pair contract and one expiry.' });

/**
 * A leg: its fields, then its own rules (expiry after `now`; exercise American or European).
 * An expiry in the past still counts as read, so the legs' shared-expiry rule sees it too.
 */
function intentSchema(now: number) {
  return intentShape.superRefine((leg, ctx) => {
    const expiry = parsedAt(ctx, ['expiry_timestamp']) ? leg.expiry_timestamp : undefined;
    if (expiry !== undefined && expiry <= now) ruleIssue(ctx, ['expiry_timestamp'], `must be in the future (now is ${now})`);
    const start = leg.start_exercise_timestamp;
    if (parsedAt(ctx, ['start_exercise_timestamp']) && start !== 0 && expiry !== undefined && start !== expiry) {
      ruleIssue(
        ctx,
        ['start_exercise_timestamp'],
        'must be 0 (American: exercisable any time until expiry) or equal to expiry_timestamp (European: expiry day only)',
      );
    }
  }, whenObject);
}

/**
 * A quote's legs (1 to MAX_LEGS), each normalised, with the cross-leg rules: one pair, one
 * expiry. `path` is where the list sits in its document (`intents`, `legs`,
 * `dutch_request.intents`): the cross-leg messages name the first leg by it.
 */
export function intentListSchema(now: number, path: string) {
  const first = `${path}[0]`;
  return sizedArray(intentSchema(now), 1, MAX_LEGS).superRefine((legs, ctx) => {
    const same = (i: number, key: 'pair6909_contract' | 'expiry_timestamp') =>
      !parsedAt(ctx, [0, key]) || !parsedAt(ctx, [i, key]) || legs[i][key] === legs[0][key];
    for (let i = 1; i < legs.length; i++) {
      if (!same(i, 'pair6909_contract')) {
        ruleIssue(ctx, [i, 'pair6909_contract'], `all legs must use the same pair6909_contract as ${first} (${legs[0].pair6909_contract})`);
      }
      if (!same(i, 'expiry_timestamp')) {
        ruleIssue(ctx, [i, 'expiry_timestamp'], `all legs must share the expiry of ${first} (${legs[0].expiry_timestamp})`);
      }
    }
  }, whenArray);
}

const listAt = rebuiltWhenChanged(intentListSchema);

/**
 * Parses and normalises a quote's legs; throws ValidationError naming every bad field
 * (`intents[1].strike_wad`), including the cross-leg rules: one pair, one expiry.
 */
export function parseIntents(raw: unknown, opts: { now: number; path?: string }): Intent[] {
  const path = opts.path ?? 'intents';
  return parseOrThrow(listAt(opts.now, path), raw, path);
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
