import { z } from 'zod';
import { PROVIDER_FAILURE_CLASSES } from '../../shared/indexed';
import { chainIdQuery } from '../../shared/platform/validation';
import { defineRoute } from '../http/route-spec';
import { errorCase } from '../http/error-cases';
import { wireAddress, wireChainId, wireTime } from '../http/wire-formats';

const block = z.number().int();
const failureCounts = z.partialRecord(z.enum(PROVIDER_FAILURE_CLASSES), z.number().int());

const networkStatus = z.strictObject({
  chain_id: wireChainId,
  healthy: z.boolean(),
  state: z.enum(['starting', 'backfill', 'realtime', 'halted', 'unknown']),
  problem: z.strictObject({ code: z.string(), message: z.string() }).nullable().meta({ description: 'Why the entry is unhealthy, in fixed words.' }),
  action: z.string().nullable().meta({ description: 'When halted: the operator command that resumes the network.' }),
  head: block.nullable(),
  cursor: block.nullable(),
  finalized_block: block.nullable(),
  lag_blocks: block.nullable(),
  lag_seconds: z.number().int().nullable(),
  last_synced_at: wireTime.nullable(),
  backfill: z.boolean(),
  cursors: z.array(
    z.strictObject({ contract_set: z.string(), block_number: block, block_hash: z.string().nullable(), start_block: block.nullable(), updated_at: wireTime }),
  ),
  blocks_kept: z.strictObject({
    window_from: block.nullable(),
    window_to: block.nullable(),
    window_blocks: z.number().int(),
    oldest_checkpoint: block.nullable(),
  }),
  reorgs: z.strictObject({
    count: z.number().int(),
    deepest: z.number().int(),
    last: z.strictObject({ at: wireTime, depth: z.number().int(), ancestor_block: block, orphaned_tip: block.nullable() }).nullable(),
  }),
  provider: z
    .strictObject({
      urls: z.array(
        z.strictObject({
          url_index: z.number().int().meta({ description: "The URL's place in the network's rpc_urls (the URL itself is never shown)." }),
          state: z.enum(['serving', 'sitting_out']),
          back_at: wireTime.nullable(),
          failures_in_a_row: z.number().int(),
          requests: z.number().int(),
          failures: failureCounts,
        }),
      ),
      last_minute: failureCounts,
    })
    .nullable()
    .meta({ description: "The network's RPC URLs as the indexer uses them (by health) and what they did wrong, by class (docs/INDEXER.md, Providers)." }),
  audit: z
    .strictObject({
      enabled: z.boolean(),
      depth_blocks: z.number().int(),
      blocks_per_minute: z.number().int(),
      next_block: block.nullable(),
      passes: z.number().int(),
      last_pass_at: wireTime.nullable(),
      blocks_checked: z.number().int(),
      differences_total: z.number().int(),
      last_difference: z
        .strictObject({ at: wireTime, from_block: block, missing: z.number().int(), unexpected: z.number().int(), resync_request: z.number().int() })
        .nullable(),
    })
    .nullable()
    .meta({ description: 'The standing audit: finalized blocks re-read from the chain and compared with what was stored.' }),
});

const core = z.strictObject({
  address: wireAddress,
  token0: wireAddress.nullable(),
  token1: wireAddress.nullable(),
  premium_token: wireAddress.nullable(),
  created_block: block.nullable(),
  discovered: z.boolean().meta({ description: "Found through the factory's PairCreated events." }),
  registered: z.boolean().meta({ description: "Named by the network's entry (quote creation accepts these too)." }),
});

const INDEXER_UNAVAILABLE = errorCase(503, 'indexer_unavailable', 'indexer unavailable: RPC of chain 31337 does not answer');

const common = {
  method: 'get',
  tags: ['indexer'],
  auth: { action: 'read_public' },
  cache: 'no-store',
  request: { query: chainIdQuery },
  errors: [INDEXER_UNAVAILABLE],
} as const;

/** Indexer health and discovered CLOBs; 503 only when the asked network, or every network, is down. */
export const indexerSpecs = {
  getIndexerStatus: defineRoute({
    ...common,
    path: '/api/indexer/status',
    summary: 'Head, cursors, lag and reorgs of each network',
    responses: { 200: { description: 'One entry per enabled network (or the one asked for).', schema: z.strictObject({ networks: z.array(networkStatus) }) } },
  }),
  listIndexerCores: defineRoute({
    ...common,
    path: '/api/indexer/cores',
    summary: 'Discovered and registered CLOB pair contracts',
    responses: {
      200: {
        description: 'Pairs of each network.',
        schema: z.strictObject({ networks: z.array(z.strictObject({ chain_id: wireChainId, healthy: z.boolean(), cores: z.array(core) })) }),
      },
    },
  }),
};
