import { readFile } from 'node:fs/promises';
import { isSettingKey, NetworksService, SETTING_SUMMARIES } from '../../shared/networks';
import { requireFlag, UsageError, type OpsCommand } from './command';
import { announceNetworkChange } from './network-notice';

export const networksCommands: OpsCommand[] = [
  {
    name: 'network:upsert',
    usage: 'network:upsert --file net.json',
    summary: 'create or replace a network, its contract map and its tokens from a JSON file',
    async run(ctx, args) {
      const file = requireFlag(args, 'file');
      let raw: unknown;
      try {
        raw = JSON.parse(await readFile(file, 'utf8'));
      } catch (err) {
        throw new UsageError(`cannot read ${file} as JSON: ${(err as Error).message}`);
      }
      const stored = await new NetworksService(ctx.db).upsertNetwork(raw);
      await announceNetworkChange(ctx.config, stored.chain_id);
      ctx.print(stored);
    },
  },
  {
    name: 'network:list',
    usage: 'network:list',
    summary: 'print every network, enabled or not',
    async run(ctx) {
      ctx.print({ networks: await new NetworksService(ctx.db).allNetworks() });
    },
  },
  {
    name: 'settings:set',
    usage: 'settings:set KEY VALUE',
    summary: `set an operator setting; VALUE is JSON (${Object.keys(SETTING_SUMMARIES).join(', ')}: see Settings below)`,
    async run(ctx, args) {
      const [key, value] = args.positional;
      if (!key || value === undefined) throw new UsageError('usage: settings:set KEY VALUE');
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        throw new UsageError(`VALUE must be JSON, e.g. '{"USDC":{"premium_bond_amount":"1000","fill_bond_amount":"500"}}'`);
      }
      ctx.print({ key, value: await new NetworksService(ctx.db).setSetting(key, parsed) });
    },
  },
  {
    name: 'settings:get',
    usage: 'settings:get KEY',
    summary: 'print one setting (its default when unset)',
    async run(ctx, args) {
      const [key] = args.positional;
      if (!key) throw new UsageError('usage: settings:get KEY');
      if (!isSettingKey(key)) throw new UsageError(`unknown setting ${key}`);
      ctx.print({ key, value: await new NetworksService(ctx.db).setting(key) });
    },
  },
];
