import { DEVCHAIN_CHAIN_ID } from '../../shared/chain/clients';
import { serviceSigner } from '../../shared/chain/service-signer';
import { NetworksService } from '../../shared/networks';
import { requireFlag, UsageError, type OpsCommand } from './command';
import { announceNetworkChange } from './network-notice';

export const chainCommands: OpsCommand[] = [
  {
    name: 'chain:deploy',
    usage: 'chain:deploy --rpc-url URL',
    summary:
      "deploy the reference contracts to a Hardhat node (chain 31337), register SERVICE_SIGNER_KEY's address as a service signer, and register the chain under that URL",
    async run(ctx, args) {
      const rpcUrl = requireFlag(args, 'rpc-url');
      try {
        new URL(rpcUrl);
      } catch {
        throw new UsageError(`--rpc-url ${rpcUrl} is not a URL`);
      }
      // The key the api and workers sign with must be registered for the chain to accept it. The
      // public development key only for this machine's own devchain: judged on the URL alone,
      // before anything is sent to it.
      const signer = serviceSigner(ctx.config, [{ chain_id: DEVCHAIN_CHAIN_ID, rpc_urls: [rpcUrl] }]).address;
      // dev/ is imported here, not at the top: every other command runs on a production install,
      // which has no solc (a devDependency) to compile the contracts with.
      const { assertDevTools } = await import('../../dev/dev-tools');
      assertDevTools('chain:deploy', ['solc']);
      const { deployReferenceContracts, ensureServiceSigner, expectedAddresses, hasReferenceContracts } = await import('../../dev/deploy');
      const { devchainNetwork, ensureDevBondRequirements } = await import('../../dev/devchain');
      // Deployment is deterministic (fixed deployer and nonces): a node that already holds this
      // build is only registered again, so the command is safe to repeat.
      const expected = expectedAddresses();
      const addresses = (await hasReferenceContracts(rpcUrl, expected)) ? expected : await deployReferenceContracts({ rpcUrl, serviceSigners: [signer] });
      await ensureServiceSigner({ rpcUrl, mothership: addresses.mothership, signer });
      const networks = new NetworksService(ctx.db);
      const stored = await networks.upsertNetwork(devchainNetwork(rpcUrl, addresses));
      await announceNetworkChange(ctx.config, stored.chain_id);
      ctx.print(stored);
      // The reference tokens get the devchain's non-zero bond minimums unless the operator set them.
      await ensureDevBondRequirements(networks);
    },
  },
];
