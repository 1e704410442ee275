import { z } from 'zod';
import type { OrderIntent } from '../protocol';
import {
  CHAIN_ID,
  evmAddress,
  intRange,
  intSchema,
  parsedAt,
  parseOrThrow,
  readDecimalUint,
  rebuiltWhenChanged,
  required,
  ruleIssue,
  UINT144_MAX,
  UINT256_MAX,
  unixSeconds,
  unknownKeys,
  whenObject,
} from '../platform/validation';
import { MAX_DECAY_BPS_PER_SECOND } from '../../wire/src/order-bodies';
import { acceptedOrderBody, type ParsedOrderBody } from './order-request-check';

/**
 * `POST /api/orders`'s body: the spec's order table, every field checked against its Solidity
 * width (OrderIntent, docs/PROTOCOL.md) and against the clock. What needs the networks table (the
 * chain, the pair, the mothership) is checked by the service.
 */

/**
 * An unsigned integer within `max`, as a decimal string or a JSON integer that is exactly
 * representable (the spec shows some of these fields as integers); read as a bigint.
 */
const uint = (max: bigint, what: string, min = 0n) =>
  z.unknown().transform((v, ctx) => {
    const text = typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? String(v) : v;
    const r = readDecimalUint(text, { min, max, what });
    if ('value' in r) return r.value;
    ctx.addIssue({ code: 'custom', message: typeof v === 'number' ? `${r.problem} (integers past 2^53 must be decimal strings)` : r.problem });
    return z.NEVER;
  });

const zeroOrOne = (what: string) => intSchema({ min: 0, max: 1, message: `must be ${what}` });
const decayRate = intSchema({
  ...intRange(0, MAX_DECAY_BPS_PER_SECOND),
  message: `must be an integer of basis points per second from 0 to ${MAX_DECAY_BPS_PER_SECOND}`,
});

/** A nested object whose unknown keys are each named. */
function strictShape<S extends z.ZodRawShape>(shape: S, what: string) {
  const known = new Set(Object.keys(shape));
  return z
    .looseObject(shape, { message: 'must be a JSON object' })
    .superRefine((v, ctx) => unknownKeys(ctx, v, known, `is not a field of ${what}`), whenObject);
}

function orderRequestSchema(now: number, horizonSeconds: number) {
  const destination = strictShape(
    {
      from: required(evmAddress),
      to: required(evmAddress),
      nonce: required(
        strictShape(
          {
            prefix: required(intSchema({ ...intRange(0, Number.MAX_SAFE_INTEGER), message: `must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}` })),
            nonce: required(uint(UINT256_MAX, 'uint256')),
          },
          'destination.nonce',
        ),
      ),
    },
    'destination',
  );
  const data = strictShape(
    {
      options6909Contract: required(evmAddress),
      rewardLimits: required(
        strictShape(
          { fillerRewardMaxPerMintedUnit: required(uint(UINT256_MAX, 'uint256')), fillerRewardMinPerMintedUnit: required(uint(UINT256_MAX, 'uint256')) },
          'data.rewardLimits',
        ),
      ),
      pairKey: required(
        strictShape(
          { optionType: required(zeroOrOne('0 (call) or 1 (put)')), startExecutionTimeStamp: required(unixSeconds), expiryTimestamp: required(unixSeconds) },
          'data.pairKey',
        ),
      ),
      decayPremium: required(
        strictShape(
          {
            premiumStart: required(uint(UINT256_MAX, 'uint256')),
            premiumEnd: required(uint(UINT256_MAX, 'uint256')),
            decayRateBpsPerSecond: required(decayRate),
          },
          'data.decayPremium',
        ),
      ),
      decayStrike: required(
        strictShape(
          {
            strikeStart: required(uint(UINT144_MAX, 'uint144', 1n)),
            strikeEnd: required(uint(UINT144_MAX, 'uint144', 1n)),
            decayRateBpsPerSecond: required(decayRate),
          },
          'data.decayStrike',
        ),
      ),
      decayMinFill: required(
        strictShape({ startMinFill: required(uint(UINT256_MAX, 'uint256')), decayRatePerSecond: required(uint(UINT256_MAX, 'uint256')) }, 'data.decayMinFill'),
      ),
      buyOrSell: required(zeroOrOne('0 (buy) or 1 (sell)')),
      intentStartTime: required(unixSeconds),
      intentExpiry: required(unixSeconds),
      orderOnExpiry: required(zeroOrOne('0 (leave the book at intentExpiry) or 1 (rest until the option expires)')),
    },
    'data',
  );
  const shape = {
    chain_id: required(intSchema(CHAIN_ID)),
    amount: required(uint(UINT256_MAX, 'uint256', 1n)),
    destination: required(destination),
    data: required(data),
  };
  const known = new Set(Object.keys(shape));
  return z.looseObject(shape, { message: 'must be a JSON object' }).superRefine((b, ctx) => {
    unknownKeys(ctx, b, known, 'is not a field of an order');
    crossFieldRules(b as OrderBody, ctx, now, now + horizonSeconds);
  }, whenObject);
}

type OrderBody = z.output<ReturnType<typeof orderRequestSchema>>;

/**
 * Rules between fields; each judges only values that parsed. `latest` (now +
 * ORDER_MAX_HORIZON_SECONDS) bounds every timestamp: an order cannot hang around for ages.
 */
function crossFieldRules(b: OrderBody, ctx: z.core.ParsePayload, now: number, latest: number): void {
  const ok = (...path: (string | number)[]) => parsedAt(ctx, path);
  const d = b.data;
  const horizon = (path: string[], value: number) => {
    if (value > latest) ruleIssue(ctx, path, `must be at most ${latest} (now ${now} + ORDER_MAX_HORIZON_SECONDS ${latest - now})`);
  };
  if (ok('data', 'pairKey')) {
    horizon(['data', 'pairKey', 'expiryTimestamp'], d.pairKey.expiryTimestamp);
    horizon(['data', 'pairKey', 'startExecutionTimeStamp'], d.pairKey.startExecutionTimeStamp);
  }
  if (ok('data', 'intentStartTime')) horizon(['data', 'intentStartTime'], d.intentStartTime);
  if (ok('data', 'intentExpiry')) horizon(['data', 'intentExpiry'], d.intentExpiry);
  if (ok('data', 'rewardLimits') && d.rewardLimits.fillerRewardMinPerMintedUnit > d.rewardLimits.fillerRewardMaxPerMintedUnit) {
    ruleIssue(ctx, ['data', 'rewardLimits', 'fillerRewardMinPerMintedUnit'], 'must not exceed fillerRewardMaxPerMintedUnit');
  }
  if (ok('data', 'pairKey')) {
    const { startExecutionTimeStamp: start, expiryTimestamp: expiry } = d.pairKey;
    if (expiry <= now) ruleIssue(ctx, ['data', 'pairKey', 'expiryTimestamp'], `must be in the future (now is ${now}): an expired series cannot exist`);
    if (start !== 0 && start !== expiry) {
      ruleIssue(
        ctx,
        ['data', 'pairKey', 'startExecutionTimeStamp'],
        'must be 0 (American: exercisable any time until expiry) or equal to expiryTimestamp (European)',
      );
    }
  }
  if (ok('data', 'intentStartTime') && ok('data', 'intentExpiry') && d.intentStartTime >= d.intentExpiry) {
    ruleIssue(ctx, ['data', 'intentStartTime'], 'must be before intentExpiry');
  }
  if (ok('data', 'intentExpiry')) {
    if (d.intentExpiry <= now) ruleIssue(ctx, ['data', 'intentExpiry'], `must be in the future (now is ${now})`);
    else if (ok('data', 'pairKey') && d.intentExpiry > d.pairKey.expiryTimestamp) {
      ruleIssue(ctx, ['data', 'intentExpiry'], `must not be after the option's expiry (data.pairKey.expiryTimestamp ${d.pairKey.expiryTimestamp})`);
    }
  }
  if (ok('amount') && ok('data', 'decayMinFill') && d.decayMinFill.startMinFill > b.amount) {
    ruleIssue(ctx, ['data', 'decayMinFill', 'startMinFill'], 'must not exceed amount');
  }
}

const schemaAt = rebuiltWhenChanged(orderRequestSchema);

/**
 * The fields the spec types as integers, which the answer echoes in the form the request sent
 * (docs/ORDERS.md, "Number forms"): true when sent as a JSON integer (always a safe integer: the
 * parser refuses one past 2^53), false when sent as a decimal string.
 */
export interface NumberForms {
  fillerRewardMaxPerMintedUnit: boolean;
  fillerRewardMinPerMintedUnit: boolean;
  premiumStart: boolean;
  premiumEnd: boolean;
}

/** Every field as a decimal string: the form of an intent with no request behind it. */
const ALL_STRINGS: NumberForms = { fillerRewardMaxPerMintedUnit: false, fillerRewardMinPerMintedUnit: false, premiumStart: false, premiumEnd: false };

/** A parsed order: the chain, the on-chain intent it is, and the forms its integer fields came in. */
export interface OrderRequest {
  chain_id: number;
  intent: OrderIntent;
  forms: NumberForms;
}

/**
 * Parses `POST /api/orders`'s body at `now` (unix seconds), every timestamp at most
 * `horizonSeconds` ahead, reporting every bad field at once. A body the fast check accepts is
 * answered by it (order-request-check.ts); any other is the schema's to parse or refuse.
 */
export function parseOrderRequest(body: unknown, now: number, horizonSeconds: number): OrderRequest {
  const b = acceptedOrderBody(body, now, horizonSeconds) ?? parseOrThrow(schemaAt(now, horizonSeconds), body);
  return orderRequestOf(b, body);
}

/** The same body parsed by the schema alone: the contract the fast check is held to, and the 400 of a refused body. */
export function parseOrderRequestBySchema(body: unknown, now: number, horizonSeconds: number): OrderRequest {
  return orderRequestOf(parseOrThrow(schemaAt(now, horizonSeconds), body), body);
}

/**
 * The order a parsed body is, whichever side parsed it (the schema's output is typed into the
 * fast check's ParsedOrderBody here, so the two cannot drift apart in shape); `body` is what was
 * sent, read only for the forms of its integers.
 */
function orderRequestOf(b: ParsedOrderBody, body: unknown): OrderRequest {
  const d = b.data;
  // The body parsed, so these objects are there; only the type of each value is read.
  const sent = (body as { data: { rewardLimits: Record<string, unknown>; decayPremium: Record<string, unknown> } }).data;
  const integer = (v: unknown) => typeof v === 'number';
  return {
    chain_id: b.chain_id,
    forms: {
      fillerRewardMaxPerMintedUnit: integer(sent.rewardLimits.fillerRewardMaxPerMintedUnit),
      fillerRewardMinPerMintedUnit: integer(sent.rewardLimits.fillerRewardMinPerMintedUnit),
      premiumStart: integer(sent.decayPremium.premiumStart),
      premiumEnd: integer(sent.decayPremium.premiumEnd),
    },
    intent: {
      from: b.destination.from,
      to: b.destination.to,
      noncePrefix: BigInt(b.destination.nonce.prefix),
      nonce: b.destination.nonce.nonce,
      options6909Contract: d.options6909Contract,
      amount: b.amount,
      fillerRewardMaxPerMintedUnit: d.rewardLimits.fillerRewardMaxPerMintedUnit,
      fillerRewardMinPerMintedUnit: d.rewardLimits.fillerRewardMinPerMintedUnit,
      optionType: d.pairKey.optionType,
      startExecutionTimestamp: d.pairKey.startExecutionTimeStamp,
      expiryTimestamp: d.pairKey.expiryTimestamp,
      premiumStart: d.decayPremium.premiumStart,
      premiumEnd: d.decayPremium.premiumEnd,
      premiumDecayRateBpsPerSecond: d.decayPremium.decayRateBpsPerSecond,
      strikeStart: d.decayStrike.strikeStart,
      strikeEnd: d.decayStrike.strikeEnd,
      strikeDecayRateBpsPerSecond: d.decayStrike.decayRateBpsPerSecond,
      startMinFill: d.decayMinFill.startMinFill,
      minFillDecayRatePerSecond: d.decayMinFill.decayRatePerSecond,
      buyOrSell: d.buyOrSell,
      intentStartTime: d.intentStartTime,
      intentExpiry: d.intentExpiry,
      orderOnExpiry: d.orderOnExpiry,
    },
  };
}

/**
 * The order's JSON form (what the API stores and echoes): big integers as decimal strings,
 * except the fields `forms` says came as JSON integers, which stay integers; addresses checksummed.
 */
export function orderJson(i: OrderIntent, forms: NumberForms = ALL_STRINGS) {
  const echo = (v: bigint, integer: boolean): string | number => (integer ? Number(v) : v.toString());
  return {
    destination: { from: i.from, to: i.to, nonce: { prefix: Number(i.noncePrefix), nonce: i.nonce.toString() } },
    data: {
      options6909Contract: i.options6909Contract,
      rewardLimits: {
        fillerRewardMaxPerMintedUnit: echo(i.fillerRewardMaxPerMintedUnit, forms.fillerRewardMaxPerMintedUnit),
        fillerRewardMinPerMintedUnit: echo(i.fillerRewardMinPerMintedUnit, forms.fillerRewardMinPerMintedUnit),
      },
      pairKey: { optionType: i.optionType, startExecutionTimeStamp: i.startExecutionTimestamp, expiryTimestamp: i.expiryTimestamp },
      decayPremium: {
        premiumStart: echo(i.premiumStart, forms.premiumStart),
        premiumEnd: echo(i.premiumEnd, forms.premiumEnd),
        decayRateBpsPerSecond: i.premiumDecayRateBpsPerSecond,
      },
      decayStrike: { strikeStart: i.strikeStart.toString(), strikeEnd: i.strikeEnd.toString(), decayRateBpsPerSecond: i.strikeDecayRateBpsPerSecond },
      decayMinFill: { startMinFill: i.startMinFill.toString(), decayRatePerSecond: i.minFillDecayRatePerSecond.toString() },
      buyOrSell: i.buyOrSell,
      intentStartTime: i.intentStartTime,
      intentExpiry: i.intentExpiry,
      orderOnExpiry: i.orderOnExpiry,
    },
    amount: i.amount.toString(),
  };
}

export type OrderJson = ReturnType<typeof orderJson>;
