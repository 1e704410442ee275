import type { Express } from 'express';
import type { Address } from 'viem';
import { NetworksService } from '../../../shared/networks';
import { startTestChain, type TestChain } from '../../support/chain';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { bearer, fetchNonce, newWallet, siweMessage } from '../../support/wallets';
import { deployContractWallet } from './contract-wallet';

/** ERC-1271: a smart-contract wallet signs in through the network's RPC. */
describe('contract wallet sign-in', () => {
  let chain: TestChain;
  let env: TestEnv;
  let app: Express;
  let networks: NetworksService;
  const owner = newWallet();
  let wallet: Address;

  beforeAll(async () => {
    chain = await startTestChain();
    env = await createTestEnv({ SIWE_CHAIN_ID: String(chain.chainId), SIWE_RPC_TIMEOUT_MS: '2000' });
    app = buildApp(env).app;
    networks = new NetworksService(env.db);
    await networks.upsertNetwork(chain.network);
    wallet = await deployContractWallet(chain, owner.address);
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await chain?.stop();
  });

  it("logs in when the contract accepts its owner's signature", async () => {
    const message = siweMessage(await fetchNonce(app), wallet);
    const res = await request(app)
      .post('/api/login')
      .send({ message, signature: await owner.signMessage({ message }) })
      .expect(200);
    expect(res.body.address).toBe(wallet);
    const me = await request(app).get('/api/me').set(bearer(res.body.token)).expect(200);
    expect(me.body).toEqual({ credential: 'siwe', address: wallet, tier: 'freemium' });
  });

  it('is refused when the contract rejects the signature', async () => {
    const message = siweMessage(await fetchNonce(app), wallet);
    const res = await request(app)
      .post('/api/login')
      .send({ message, signature: await newWallet().signMessage({ message }) })
      .expect(401);
    expect(res.body.code).toBe('siwe_bad_signature');
  });

  it('answers 503 when the network RPC cannot be reached, and EOAs still sign in offline', async () => {
    await networks.upsertNetwork({ ...chain.network, rpc_urls: ['http://127.0.0.1:9'] });
    try {
      const message = siweMessage(await fetchNonce(app), wallet);
      const res = await request(app)
        .post('/api/login')
        .send({ message, signature: await owner.signMessage({ message }) })
        .expect(503);
      expect(res.body.code).toBe('rpc_unavailable');
      const eoaMessage = siweMessage(await fetchNonce(app), owner.address);
      await request(app)
        .post('/api/login')
        .send({ message: eoaMessage, signature: await owner.signMessage({ message: eoaMessage }) })
        .expect(200);
    } finally {
      await networks.upsertNetwork(chain.network);
    }
  });
});
