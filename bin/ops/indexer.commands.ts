import { IndexerOpsService } from '../../shared/indexed';
import { requireFlag, UsageError, type ParsedArgs, type OpsCommand } from './command';

/** A flag that must be a whole number in [min, max]. */
function intFlag(args: ParsedArgs, name: string, min: number, max: number): number {
  const raw = requireFlag(args, name);
  if (!/^[0-9]{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got ${raw}`);
  return Number(raw);
}

const MAX_CHAIN_ID = 2_147_483_647;

export const indexerCommands: OpsCommand[] = [
  {
    name: 'indexer:status',
    usage: 'indexer:status [--chain ID]',
    summary: "print each network's indexer state: cursors, kept block hashes, reorgs, errors (raw), resync requests",
    async run(ctx, args) {
      const chainId = args.flags.chain === undefined ? undefined : intFlag(args, 'chain', 1, MAX_CHAIN_ID);
      ctx.print(await new IndexerOpsService(ctx.db).report(chainId));
    },
  },
  {
    name: 'indexer:resync',
    usage: 'indexer:resync --chain ID --from-block N [--no-wait] [--timeout-seconds S]',
    summary: 'roll the network back to block N-1 and re-sync from N; the running indexer does it between two steps (waits up to S s, default 120)',
    async run(ctx, args) {
      const chainId = intFlag(args, 'chain', 1, MAX_CHAIN_ID);
      const fromBlock = intFlag(args, 'from-block', 0, Number.MAX_SAFE_INTEGER);
      const timeoutSeconds = args.flags['timeout-seconds'] === undefined ? 120 : intFlag(args, 'timeout-seconds', 1, 86_400);
      const ops = new IndexerOpsService(ctx.db);
      const request = await ops.requestResync(chainId, fromBlock);
      if (args.flags['no-wait'] === true) {
        ctx.print(request);
        return;
      }
      ctx.print(await ops.awaitResync(request.id, timeoutSeconds * 1000));
    },
  },
];
