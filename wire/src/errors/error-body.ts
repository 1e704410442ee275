import { z } from 'zod';

/** The error body (docs/API.md, "Conventions of every answer"): what to show, what to branch on, the bad fields, the request id. */
export const errorBodySchema = z
  .strictObject({
    error: z.string().min(1).meta({ description: 'What went wrong, for a human; verbatim from the spec where it names the text.' }),
    code: z
      .string()
      .regex(/^[a-z][a-z0-9_]*$/)
      .meta({ description: 'What went wrong, for a program: snake_case, stable.' }),
    details: z
      .array(z.strictObject({ path: z.string(), message: z.string() }))
      .min(1)
      .optional()
      .meta({ description: 'One entry per bad field, e.g. `intents[1].strike_wad`.' }),
    fill_bond_requirements: z
      .record(
        z.string(),
        z.strictObject({
          token: z.string().meta({ description: 'The premium token address.' }),
          fill_bond_amount: z.string().meta({ description: 'The minimum bond (GET /api/bond-requirements), token units.' }),
          maker_bond: z.string().meta({ description: "The maker's available bond in the BondVault (indexed balance minus pending withdrawal), token units." }),
        }),
      )
      .optional()
      .meta({
        description:
          'Only on `insufficient_fill_bond` (an exclusive fill or a Dutch bid): per premium-token symbol, the minimum and the bond the maker has available (its indexed bond minus any pending withdrawal).',
      }),
    blocked_until: z.string().optional().meta({
      description:
        "Only on `maker_faded`: when the maker's organization may bid again; on `taker_unfillable_limit`: when the taker (or its delegate's organization) may create Dutch auctions again (ISO 8601; also as Retry-After, in seconds).",
    }),
    retake_allowed_at: z.string().optional().meta({
      description: 'Only on `exclusive_fill_retake_cooldown`: when the organization may take a fill over those orders again (ISO 8601; also as Retry-After).',
    }),
    fade_limit: z
      .strictObject({
        fades: z.number().int().meta({ description: 'Fades of the organization within DUTCH_FADE_WINDOW (Dutch no-shows and unused exclusive fills).' }),
        open_rights: z
          .number()
          .int()
          .meta({ description: 'Its rights that may still fade: undecided awards, bids on competing auctions, live exclusive fills.' }),
        limit: z.number().int().meta({ description: 'DUTCH_FADE_LIMIT.' }),
      })
      .optional()
      .meta({ description: 'Only on `fade_limit_reserved`: why one more right could bring the organization above its fade limit.' }),
    limit: z.string().optional().meta({
      description:
        'Only on `rate_limited` from the Explore gate: the config key of the budget that ran out, `EXPLORE_RATE_LIMIT_PER_IP` (the client IP) or `EXPLORE_RATE_LIMIT` (the credential); on the stream mints also a live-stream cap, `EXPLORE_STREAMS_PER_IP`, `EXPLORE_STREAMS_PER_WALLET`, `EXPLORE_STREAMS_PER_TAKER_KEY` or `EXPLORE_STREAMS_PER_SUBJECT`; on `taker_unfillable_limit`, `DUTCH_TAKER_UNFILLABLE_LIMIT`.',
    }),
    request_id: z.string().min(1).meta({ description: 'Also in the X-Request-Id header; quote it when asking for help.' }),
  })
  .meta({ description: 'Every 4xx and 5xx answer has this body.' });

export type ErrorBody = z.output<typeof errorBodySchema>;
