import { z } from 'zod';
import { addressSchema, chainIdSchema, intRange, intSchema, UINT8, uintString } from '../platform/validation';

/** Contract map keys that belong to the coming-soon margin product; never served. */
export const MARGIN_CONTRACT_KEY = /^margin_/;

export const tokenInputSchema = z.strictObject({
  address: addressSchema,
  symbol: z.string().regex(/^[A-Za-z0-9.+-]{1,16}$/, 'must be 1-16 letters, digits or . + -'),
  name: z.string().min(1).max(64),
  decimals: intSchema(UINT8),
  payment: z.boolean().default(false),
  default_premium: z.boolean().default(false),
  faucet: z.boolean().default(false),
  min_notional: uintString().optional(),
});

/** What `ops network:upsert --file` accepts: a network with its contracts and tokens. */
export const networkInputSchema = z.strictObject({
  chain_id: chainIdSchema,
  name: z.string().min(1).max(64),
  rpc_urls: z
    .array(
      z.string().refine((v) => {
        try {
          return ['http:', 'https:', 'ws:', 'wss:'].includes(new URL(v).protocol);
        } catch {
          return false;
        }
      }, 'must be an http(s) or ws(s) URL'),
    )
    .min(1, 'at least one RPC URL'),
  contracts: z.record(z.string().regex(/^[a-z0-9_]{1,64}$/, 'contract keys are snake_case'), addressSchema).default({}),
  enabled: z.boolean().default(true),
  confirmations: intSchema(intRange(0, 1000, 'a block count')).default(12),
  tokens: z.array(tokenInputSchema).default([]),
});

export type NetworkInput = z.output<typeof networkInputSchema>;

const bondEntry = z.strictObject({ premium_bond_amount: uintString(), fill_bond_amount: uintString() });

/**
 * Settings an operator may set, each with its schema. Unknown keys are refused so a typo
 * never silently configures nothing.
 */
const millis = (max: number) => intSchema(intRange(0, max, 'milliseconds'));

/** Operator bounds of Dutch auctions (docs/DUTCH.md); fields left out keep their defaults. */
const dutchLimits = z
  .strictObject({
    max_exclusive_ms: millis(3_600_000).optional(),
    max_auction_seconds: intSchema(intRange(1, 86_400, 'seconds')).optional(),
    default_compete_ms: millis(3_600_000).optional(),
    default_exclusive_ms: millis(3_600_000).optional(),
  })
  .transform((v) => ({ ...DUTCH_LIMIT_DEFAULTS, ...v }))
  .superRefine((v, ctx) => {
    if (v.default_exclusive_ms > v.max_exclusive_ms) {
      ctx.addIssue({ code: 'custom', path: ['default_exclusive_ms'], message: `must not exceed max_exclusive_ms (${v.max_exclusive_ms})` });
    }
  });

export const DUTCH_LIMIT_DEFAULTS = { max_exclusive_ms: 30_000, max_auction_seconds: 3_600, default_compete_ms: 2_000, default_exclusive_ms: 5_000 };

export const settingSchemas = {
  /** Bounds of Dutch auctions: exclusive window, auction length, default windows. */
  dutch_limits: dutchLimits,
  /** Maker bond minimums keyed by token symbol. */
  bond_requirements: z.record(z.string().regex(/^[A-Za-z0-9.+-]{1,16}$/), bondEntry),
  /** Free-form content of the trading landing page (merged into its response). */
  landing_page: z.record(z.string(), z.unknown()),
  /** Free-form content of the maker / filler page. */
  filler_page: z.record(z.string(), z.unknown()),
} satisfies Record<string, z.ZodType>;

export type SettingKey = keyof typeof settingSchemas;
export type SettingValue<K extends SettingKey> = z.output<(typeof settingSchemas)[K]>;

export const SETTING_DEFAULTS: { [K in SettingKey]: SettingValue<K> } = {
  bond_requirements: {},
  dutch_limits: DUTCH_LIMIT_DEFAULTS,
  landing_page: {},
  filler_page: {},
};

/**
 * What each setting holds, with an example value: `ops --help` lists every key from here, so a
 * setting added to settingSchemas must be described here too (the type requires it).
 */
export const SETTING_SUMMARIES: { [K in SettingKey]: string } = {
  bond_requirements:
    'maker bond minimums per token symbol, in token units; a premium token without an entry is refused: {"USDC":{"premium_bond_amount":"2000000","fill_bond_amount":"2000000"}}',
  dutch_limits:
    'bounds of Dutch auctions in ms and s (docs/DUTCH.md); fields left out keep their defaults: {"max_exclusive_ms":30000,"max_auction_seconds":3600,"default_compete_ms":2000,"default_exclusive_ms":5000}',
  landing_page: 'free-form object merged into GET /api/landing-page-settings: {"headline":"…"}',
  filler_page: 'free-form object served by GET /api/filler-page-settings: {"headline":"…"}',
};

export function isSettingKey(key: string): key is SettingKey {
  return Object.prototype.hasOwnProperty.call(settingSchemas, key);
}
