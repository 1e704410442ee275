import { encodeFunctionData, type Abi } from 'viem';
import { bondVaultAbi, PUBLISHED_ABIS } from '../../../shared/chain/abis';
import { NetworksService } from '../../../shared/networks';
import { networkFile } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { createTestEnv, type TestEnv } from '../../support/test-env';

describe('public networks routes', () => {
  let env: TestEnv;
  let app: ReturnType<typeof buildApp>['app'];

  beforeAll(async () => {
    env = await createTestEnv({ CHALLENGE_SITEKEY: '0x4AAAAAAAtest', CORS_ORIGINS: 'https://app.example' });
    app = buildApp(env).app;
    const networks = new NetworksService(env.db);
    await networks.upsertNetwork(networkFile(31337));
    await networks.upsertNetwork({ ...networkFile(5), enabled: false });
    await networks.setSetting('bond_requirements', { USDC: { premium_bond_amount: '1000000000', fill_bond_amount: '250000000' } });
    await networks.setSetting('filler_page', { headline: 'Fill options flow' });
    await networks.setSetting('landing_page', { banner: 'testnet' });
  });
  afterAll(() => env.close());

  it('GET /api/networks serves enabled networks with checksummed contracts and no margin keys', async () => {
    const res = await request(app).get('/api/networks').expect(200);
    expect(res.body).toEqual({
      networks: [
        {
          chain_id: 31337,
          name: 'Test 31337',
          rpc_urls: ['http://127.0.0.1:8545'],
          contracts: {
            mothership: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
            opshuns_core: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
            rfq: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
          },
        },
      ],
    });
    expect(res.headers['cache-control']).toMatch(/^public, max-age=30/);
  });

  it('GET /api/payment-tokens and /api/default-premium-tokens list tokens by role', async () => {
    const pay = await request(app).get('/api/payment-tokens').expect(200);
    expect(pay.body.tokens.map((t: { symbol: string }) => t.symbol)).toEqual(['USDC', 'WETH']);
    expect(pay.body.tokens[0]).toEqual({
      chain_id: 31337,
      address: '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853',
      symbol: 'USDC',
      name: 'USD Coin',
      decimals: 6,
      faucet: true,
    });
    const prem = await request(app).get('/api/default-premium-tokens').expect(200);
    expect(prem.body).toEqual({
      tokens: [{ chain_id: 31337, address: '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853', symbol: 'USDC', name: 'USD Coin', decimals: 6 }],
    });
  });

  it('GET /api/recommended-min-notional gives amounts as integer strings', async () => {
    const res = await request(app).get('/api/recommended-min-notional').expect(200);
    expect(res.body.min_notional).toEqual([expect.objectContaining({ chain_id: 31337, symbol: 'USDC', amount: '100000000' })]);
  });

  it('GET /api/bond-requirements is keyed by symbol with integer strings', async () => {
    const res = await request(app).get('/api/bond-requirements').expect(200);
    expect(res.body).toEqual({ tokens: { USDC: { premium_bond_amount: '1000000000', fill_bond_amount: '250000000' } } });
  });

  it("GET /api/abis serves the reference contracts' ABIs as viem parsed them, usable as they arrive", async () => {
    const res = await request(app).get('/api/abis').expect(200);
    expect(res.body).toEqual({ abis: JSON.parse(JSON.stringify(PUBLISHED_ABIS)) });
    expect(res.headers['cache-control']).toMatch(/^public, max-age=/);
    const names = (abi: Abi) => abi.map((item) => `${item.type} ${'name' in item ? item.name : ''}`);
    expect(names(res.body.abis.mothership)).toEqual(
      expect.arrayContaining(['function executeDutchFill', 'function executeFixedPackageIntent', 'error AwardNotYet']),
    );
    expect(names(res.body.abis.option_pair)).toEqual(expect.arrayContaining(['function placeIntent', 'function fillExclusive']));
    expect(names(res.body.abis.bond_vault)).toEqual(expect.arrayContaining(['function deposit', 'function requestWithdrawal', 'function withdraw']));
    expect(names(res.body.abis.erc20)).toEqual(expect.arrayContaining(['function faucet', 'function approve', 'function balanceOf']));
    // What a client encodes with the served ABI is what the typed one gives.
    const args = ['0xa513E6E4b8f2a923D98304ec87F64353C4D5C853', 2_000_000n] as const;
    expect(encodeFunctionData({ abi: res.body.abis.bond_vault as Abi, functionName: 'deposit', args })).toBe(
      encodeFunctionData({ abi: bondVaultAbi, functionName: 'deposit', args }),
    );
  });

  it('GET /api/filler-page-settings returns the operator content', async () => {
    const res = await request(app).get('/api/filler-page-settings').expect(200);
    expect(res.body).toEqual({ headline: 'Fill options flow' });
  });

  it('GET /api/landing-page-settings carries challenge config, tokens and networks', async () => {
    const res = await request(app).get('/api/landing-page-settings').expect(200);
    expect(res.body.challenge).toEqual({ sitekey: '0x4AAAAAAAtest', enabled: false });
    expect(res.body.banner).toBe('testnet');
    expect(res.body.default_premium_tokens).toHaveLength(1);
    expect(res.body.payment_tokens).toHaveLength(2);
    expect(res.body.networks.map((n: { chain_id: number }) => n.chain_id)).toEqual([31337]);
  });

  it('POST /api/premium/activate is gone', async () => {
    const res = await request(app).post('/api/premium/activate').send({}).expect(410);
    expect(res.body).toEqual({ error: expect.stringContaining('removed'), code: 'removed', request_id: expect.any(String) });
  });

  it('answers CORS only for allowlisted origins', async () => {
    const ok = await request(app).get('/api/networks').set('Origin', 'https://app.example').expect(200);
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example');
    const other = await request(app).get('/api/networks').set('Origin', 'https://evil.example').expect(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
