import { privateKeyToAccount } from 'viem/accounts';
import { mothershipAbi } from '../../../shared/chain/abis';
import { localPublicClient } from '../../../shared/chain/clients';
import { DEVELOPMENT_SERVICE_SIGNER } from '../../../shared/chain/service-signer';
import { startHardhatNode, type HardhatNode } from '../../../dev/hardhat-node';
import { freePort } from '../../support/chain';
import { buildApp, request } from '../../support/http';
import { ops, opsWithEnv } from '../../support/ops';
import { createTestEnv, type TestEnv } from '../../support/test-env';

describe('ops chain:deploy (the compose chain-setup step)', () => {
  let env: TestEnv;
  let node: HardhatNode;

  beforeAll(async () => {
    env = await createTestEnv();
    node = await startHardhatNode({ port: await freePort() });
  }, 60000);
  afterAll(async () => {
    await node?.stop();
    await env.close();
  });

  it('deploys to a bare node, registers it under the given URL, and is safe to repeat', async () => {
    const first = await ops(env, 'chain:deploy', '--rpc-url', node.rpcUrl);
    expect(first.stderr).not.toMatch(/error|fatal/i);
    expect(first.code).toBe(0);
    const net = JSON.parse(first.stdout);
    expect(net).toMatchObject({ chain_id: 31337, rpc_urls: [node.rpcUrl] });
    const code = await localPublicClient(node.rpcUrl).getCode({ address: net.contracts.mothership });
    expect(code && code.length > 2).toBe(true);

    const again = await ops(env, 'chain:deploy', '--rpc-url', node.rpcUrl);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).contracts).toEqual(net.contracts);
    const served = await request(buildApp(env).app).get('/api/networks').expect(200);
    expect(served.body.networks[0].contracts.mothership).toBe(net.contracts.mothership);
  }, 90000);

  it('registers the configured service signer on a chain it deployed before, and refuses production without a key', async () => {
    const key = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
    const signer = privateKeyToAccount(key).address;
    const isSigner = async (address: `0x${string}`, mothership: `0x${string}`) =>
      localPublicClient(node.rpcUrl).readContract({ address: mothership, abi: mothershipAbi, functionName: 'isServiceSigner', args: [address] });
    const run = await opsWithEnv(env, { SERVICE_SIGNER_KEY: key }, 'chain:deploy', '--rpc-url', node.rpcUrl);
    expect(run.code).toBe(0);
    const { mothership } = JSON.parse(run.stdout).contracts;
    expect(await isSigner(signer, mothership)).toBe(true);
    // Deployed by the first test without a key: the development signer stays registered too.
    expect(await isSigner(DEVELOPMENT_SERVICE_SIGNER.address, mothership)).toBe(true);

    const production = await opsWithEnv(env, { NODE_ENV: 'production', JWT_SECRET: 'j'.repeat(32) }, 'chain:deploy', '--rpc-url', node.rpcUrl);
    expect(production.code).not.toBe(0);
    expect(production.stderr).toContain('SERVICE_SIGNER_KEY: required when NODE_ENV=production');
  }, 90000);

  it('refuses a missing or malformed --rpc-url', async () => {
    expect((await ops(env, 'chain:deploy')).stderr).toContain('--rpc-url is required');
    expect((await ops(env, 'chain:deploy', '--rpc-url', 'nope')).stderr).toContain('is not a URL');
  }, 60000);
});
