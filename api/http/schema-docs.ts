import { z } from 'zod';

/** A JSON object of the generated documents (OpenAPI, AsyncAPI, the JSON Schemas in them), read loosely. */
export type Json = Record<string, unknown>;

/**
 * A pipe that reads `unknown` first (`required(x)`, `sizedArray(x)`: a presence or length check
 * before the real schema) says nothing in JSON Schema from its input side, so it is documented
 * as its output side instead, plus its own metadata. Pipes into a transform keep their
 * `.meta()` (shared/platform/validation's `decimalUint`, `unixSeconds`, `spelledAs`).
 */
function documentsAsOutput(schema: z.core.$ZodType): z.core.$ZodType | undefined {
  const def = schema._zod.def;
  if (def.type !== 'pipe') return undefined;
  const { in: input, out } = def as z.core.$ZodPipeDef;
  if (out._zod.def.type === 'transform') return undefined;
  const from = input._zod.def;
  const vague = from.type === 'unknown' || (from.type === 'array' && (from as z.core.$ZodArrayDef).element._zod.def.type === 'unknown');
  return vague ? out : undefined;
}

/**
 * The `override` of every conversion of the API's schemas to JSON Schema. The request schemas
 * are the domains' own parsers (shared/quotes, shared/protocol, shared/platform/validation), so
 * the documents say exactly what the service accepts: formats and bounds the parsers check in
 * code travel as `.meta()` on the schema that checks them.
 */
export function describeSharedSchema(ctx: { zodSchema: z.core.$ZodType; jsonSchema: Json }): void {
  const out = documentsAsOutput(ctx.zodSchema);
  if (!out) return;
  const { $schema: _s, ...json } = z.toJSONSchema(out, { io: 'input', override: describeSharedSchema, unrepresentable: 'any' }) as Json;
  const own = z.globalRegistry.get(ctx.zodSchema) ?? {};
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, json, own);
}
