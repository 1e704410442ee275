import { privateKeyToAccount } from 'viem/accounts';
import { mothershipAbi, serviceSignerSetEvent } from '../../../shared/chain/abis';
import { hardhatAccounts } from '../../../shared/chain/clients';
import { DEVELOPMENT_SERVICE_SIGNER } from '../../../shared/chain/service-signer';
import { ensureServiceSigner } from '../../../dev/deploy';
import { startDevchain } from '../../../dev/devchain';
import type { TestChain } from '../../support/chain';
import { sharedTestChain } from '../../support/worker-chain';
import { revertName } from './reverts';

/** The mothership's registry of service signers, as the devchain and the tests deploy it. */
let chain: TestChain;
const rotated = privateKeyToAccount('0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba');

beforeAll(async () => {
  chain = await sharedTestChain();
});
afterAll(() => chain?.stop());

/** The head now: viem caches getBlockNumber for its polling interval, which a busy machine can outlast. */
const head = async () => Number(await chain.rpc<string>('eth_blockNumber'));

const isSigner = (signer: `0x${string}`) =>
  chain.publicClient.readContract({ address: chain.addresses.mothership, abi: mothershipAbi, functionName: 'isServiceSigner', args: [signer] });

describe('service signer registry', () => {
  it('a fresh deployment is owned by its deployer and accepts the development signer only', async () => {
    const owner = await chain.publicClient.readContract({ address: chain.addresses.mothership, abi: mothershipAbi, functionName: 'owner' });
    expect(owner).toBe(hardhatAccounts(1)[0].address);
    expect(await isSigner(DEVELOPMENT_SERVICE_SIGNER.address)).toBe(true);
    expect(await isSigner(rotated.address)).toBe(false);
  });

  it('only the owner registers or revokes, never the zero address', async () => {
    const stranger = chain.wallets[3];
    const call = { address: chain.addresses.mothership, abi: mothershipAbi, functionName: 'setServiceSigner', args: [stranger.account.address, true] } as const;
    expect(await revertName(chain.publicClient.simulateContract({ ...call, account: stranger.account }))).toBe('NotOwner');
    expect(
      await revertName(
        chain.publicClient.simulateContract({ ...call, args: ['0x0000000000000000000000000000000000000000', true], account: hardhatAccounts(1)[0] }),
      ),
    ).toBe('ZeroSigner');
    expect(await isSigner(stranger.account.address)).toBe(false);
  });

  it('registers a rotated key once, with an event, and sends nothing when it already is', async () => {
    const before = await head();
    await ensureServiceSigner({ rpcUrl: chain.rpcUrl, mothership: chain.addresses.mothership, signer: rotated.address });
    const after = await head();
    expect(after - before).toBe(1);
    expect(await isSigner(rotated.address)).toBe(true);
    const logs = await chain.publicClient.getLogs({
      address: chain.addresses.mothership,
      event: serviceSignerSetEvent,
      fromBlock: BigInt(after),
      toBlock: BigInt(after),
    });
    expect(logs.map((l) => l.args)).toEqual([{ signer: rotated.address, allowed: true }]);

    await ensureServiceSigner({ rpcUrl: chain.rpcUrl, mothership: chain.addresses.mothership, signer: rotated.address });
    expect((await head()) - after).toBe(0);
  });

  it('a devchain adopted with a newly configured key registers that key', async () => {
    const fresh = privateKeyToAccount('0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6');
    expect(await isSigner(fresh.address)).toBe(false);
    const adopted = await startDevchain({ port: Number(new URL(chain.rpcUrl).port), serviceSigner: fresh.address });
    expect(adopted.reused).toBe(true);
    expect(await isSigner(fresh.address)).toBe(true);
  });
});
