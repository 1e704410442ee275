import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { settingSchemas } from '../../../shared/networks';
import { networkFile } from '../../support/fixtures';
import { buildApp, request } from '../../support/http';
import { ops } from '../../support/ops';
import { createTestEnv, type TestEnv } from '../../support/test-env';

describe('operator CLI', () => {
  let env: TestEnv;
  let dir: string;

  beforeAll(async () => {
    env = await createTestEnv();
    dir = await mkdtemp(path.join(tmpdir(), 'rfq-ops-'));
  });
  afterAll(() => env.close());

  it('--help lists the commands, and every setting with an example value that settings:set accepts', async () => {
    const r = await ops(env, '--help');
    expect(r.code).toBe(0);
    for (const c of ['network:upsert --file', 'settings:set KEY VALUE', 'migrate']) expect(r.stdout).toContain(c);
    const section = r.stdout.slice(r.stdout.indexOf('\nSettings'));
    const listed = [...section.matchAll(/^ {2}([a-z_]+) +(.*)$/gm)].map((m) => ({ key: m[1], summary: m[2] }));
    expect(listed.map((l) => l.key).sort()).toEqual(Object.keys(settingSchemas).sort());
    expect(listed.map((l) => l.key)).toContain('dutch_limits');
    for (const { key, summary } of listed) {
      const example = summary.slice(summary.indexOf(': {') + 2);
      const set = await ops(env, 'settings:set', key, example);
      expect([key, set.code, set.stderr]).toEqual([key, 0, '']);
    }
  }, 60000);

  it('network:upsert then the network is served over HTTP', async () => {
    const file = path.join(dir, 'net.json');
    await writeFile(file, JSON.stringify(networkFile(421614, { name: 'Arbitrum Sepolia' })));
    const r = await ops(env, 'network:upsert', '--file', file);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ chain_id: 421614, name: 'Arbitrum Sepolia' });

    const res = await request(buildApp(env).app).get('/api/networks').expect(200);
    expect(res.body.networks).toEqual([expect.objectContaining({ chain_id: 421614, name: 'Arbitrum Sepolia' })]);
    expect(Object.keys(res.body.networks[0].contracts)).not.toContain('margin_rfq_core');
  }, 60000);

  it('settings:set validates and stores; a bad value names the field', async () => {
    const ok = await ops(env, 'settings:set', 'bond_requirements', '{"USDC":{"premium_bond_amount":"5","fill_bond_amount":"7"}}');
    expect(ok.code).toBe(0);
    const res = await request(buildApp(env).app).get('/api/bond-requirements').expect(200);
    expect(res.body.tokens.USDC).toEqual({ premium_bond_amount: '5', fill_bond_amount: '7' });

    const bad = await ops(env, 'settings:set', 'bond_requirements', '{"USDC":{"premium_bond_amount":"-5","fill_bond_amount":"7"}}');
    expect(bad.code).toBe(65);
    expect(bad.stderr).toContain('bond_requirements.USDC.premium_bond_amount');

    const unknown = await ops(env, 'settings:set', 'colour', '"blue"');
    expect(unknown.code).toBe(65);
    expect(unknown.stderr).toContain('unknown setting "colour"');
  }, 60000);

  it('a bad network file is refused with each bad field and changes nothing', async () => {
    const file = path.join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ chain_id: -1, name: '', rpc_urls: ['ftp://x'], contracts: { mothership: '0x12' } }));
    const r = await ops(env, 'network:upsert', '--file', file);
    expect(r.code).toBe(65);
    for (const p of ['chain_id', 'name', 'rpc_urls[0]', 'contracts.mothership']) expect(r.stderr).toContain(p);
    const res = await request(buildApp(env).app).get('/api/networks').expect(200);
    expect(res.body.networks.map((n: { chain_id: number }) => n.chain_id)).toEqual([421614]);
  }, 60000);

  it('an unknown command exits 64 with the help', async () => {
    const r = await ops(env, 'launch:rocket');
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('unknown command launch:rocket');
  });
});
