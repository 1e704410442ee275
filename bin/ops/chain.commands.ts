import { deployReferenceContracts, expectedAddresses, hasReferenceContracts } from '../../dev/deploy';
import { devchainNetwork } from '../../dev/devchain';
import { RegistryService } from '../../shared/registry';
import { requireFlag, UsageError, type OpsCommand } from './command';

export const chainCommands: OpsCommand[] = [
  {
    name: 'chain:deploy',
    usage: 'chain:deploy --rpc-url URL',
    summary: 'deploy the reference contracts to a Hardhat node (chain 31337) and register it under that URL',
    async run(ctx, args) {
      const rpcUrl = requireFlag(args, 'rpc-url');
      try {
        new URL(rpcUrl);
      } catch {
        throw new UsageError(`--rpc-url ${rpcUrl} is not a URL`);
      }
      // Deployment is deterministic (fixed deployer and nonces): a node that already holds this
      // build is only registered again, so the command is safe to repeat.
      const expected = expectedAddresses();
      const addresses = (await hasReferenceContracts(rpcUrl, expected)) ? expected : await deployReferenceContracts({ rpcUrl });
      ctx.print(await new RegistryService(ctx.db).upsertNetwork(devchainNetwork(rpcUrl, addresses)));
    },
  },
];
