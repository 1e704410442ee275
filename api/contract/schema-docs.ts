import { addressSchema, chainIdQuery, chainIdSchema } from '../../shared/platform/validation';

/**
 * What zod cannot say about the shared request primitives in JSON Schema: their checks are
 * refinements (a checksum, a column's range), which convert to a bare `string` or `number`.
 * Keyed by the schema instances the domains reuse, so every route that takes them shows the same
 * format. Used as the `override` of every conversion.
 */
const SHARED: ReadonlyMap<unknown, Record<string, unknown>> = new Map<unknown, Record<string, unknown>>([
  [addressSchema, { pattern: '^0x[0-9a-fA-F]{40}$', description: 'EVM address, any case; answers carry it checksummed.' }],
  [chainIdSchema, { type: 'integer', minimum: 1, maximum: 2_147_483_647, description: 'A registry network (GET /api/networks).' }],
  [chainIdQuery.shape.chain_id, { pattern: '^(0|[1-9][0-9]{0,15})$', description: 'Limits the answer to one registry network (plain decimal digits, given once).' }],
]);

export function describeSharedSchema(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const extra = SHARED.get(ctx.zodSchema);
  if (extra) Object.assign(ctx.jsonSchema, extra);
}
