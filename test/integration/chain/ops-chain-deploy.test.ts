import { localPublicClient } from '../../../shared/chain/clients';
import { startHardhatNode, type HardhatNode } from '../../../dev/hardhat-node';
import { freePort } from '../../support/chain';
import { buildApp, request } from '../../support/http';
import { ops } from '../../support/ops';
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

  it('refuses a missing or malformed --rpc-url', async () => {
    expect((await ops(env, 'chain:deploy')).stderr).toContain('--rpc-url is required');
    expect((await ops(env, 'chain:deploy', '--rpc-url', 'nope')).stderr).toContain('is not a URL');
  }, 60000);
});
