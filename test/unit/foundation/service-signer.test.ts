import { Writable } from 'node:stream';
import { privateKeyToAccount } from 'viem/accounts';
import { ConfigError, loadConfig } from '../../../shared/platform/config';
import { createLogger } from '../../../shared/platform/logging';
import { developmentKeyProblem, DEVELOPMENT_SERVICE_SIGNER, isLoopbackUrl, serviceSigner } from '../../../shared/chain/service-signer';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

function problemsOf(fn: () => unknown): { key: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('SERVICE_SIGNER_KEY', () => {
  const devchain = [{ chain_id: 31337, rpc_urls: ['http://127.0.0.1:8545'] }];
  const remote = { chain_id: 421614, rpc_urls: ['http://10.255.255.1:8545'] };

  it('signs with the configured key, whatever the networks', () => {
    const config = loadConfig({ SERVICE_SIGNER_KEY: KEY });
    expect(serviceSigner(config, [remote]).address).toBe(privateKeyToAccount(KEY).address);
  });

  it("falls back to the public development key only for this machine's own devchain (loopback RPC, DEVCHAIN on)", () => {
    expect(serviceSigner(loadConfig({}), devchain).address).toBe(DEVELOPMENT_SERVICE_SIGNER.address);
    expect(serviceSigner(loadConfig({}), [{ chain_id: 31337, rpc_urls: ['http://localhost:8545', 'ws://[::1]:8546'] }]).address).toBe(
      DEVELOPMENT_SERVICE_SIGNER.address,
    );
    expect(serviceSigner(loadConfig({}), []).address).toBe(DEVELOPMENT_SERVICE_SIGNER.address);
    // The bind address no longer decides: a public HOST on the devchain may use it, a loopback HOST on a remote chain may not.
    expect(serviceSigner(loadConfig({ HOST: '0.0.0.0', JWT_SECRET: 'x'.repeat(32) }), devchain).address).toBe(DEVELOPMENT_SERVICE_SIGNER.address);
  });

  it('is required in production', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) });
    expect(problemsOf(() => serviceSigner(config, devchain))).toEqual([
      { key: 'SERVICE_SIGNER_KEY', message: 'required when NODE_ENV=production (0x and 64 hex digits)' },
    ]);
  });

  it('is required when any registered network is reached on a non-loopback RPC URL', () => {
    for (const n of [
      remote,
      { chain_id: 1, rpc_urls: ['https://rpc.example'] },
      { chain_id: 31337, rpc_urls: ['http://127.0.0.1:8545', 'http://192.168.1.5:8545'] },
      { chain_id: 5, rpc_urls: [] },
    ]) {
      const problems = problemsOf(() => serviceSigner(loadConfig({}), [...devchain, n]));
      expect(problems).toEqual([
        { key: 'SERVICE_SIGNER_KEY', message: expect.stringMatching(new RegExp(`^required: network ${n.chain_id} \\(.*\\) is not this machine's devchain`)) },
      ]);
    }
  });

  it('is required when DEVCHAIN=off, even on a loopback chain', () => {
    expect(problemsOf(() => serviceSigner(loadConfig({ DEVCHAIN: 'off' }), devchain))[0]).toMatchObject({
      key: 'SERVICE_SIGNER_KEY',
      message: expect.stringMatching(/^required when DEVCHAIN=off/),
    });
  });

  it('reads only the URLs: a malformed one is not loopback', () => {
    expect(isLoopbackUrl('http://127.0.0.1:8545')).toBe(true);
    expect(isLoopbackUrl('http://127.8.0.1')).toBe(true);
    expect(isLoopbackUrl('http://[::1]:8545')).toBe(true);
    expect(isLoopbackUrl('http://10.255.255.1')).toBe(false);
    expect(isLoopbackUrl('http://127.0.0.1.example.com')).toBe(false);
    expect(isLoopbackUrl('not a url')).toBe(false);
    expect(developmentKeyProblem({ NODE_ENV: 'development', DEVCHAIN: 'auto' }, [{ chain_id: 9, rpc_urls: ['nonsense'] }])).toMatch(/network 9 \(nonsense\)/);
  });

  it.each([
    ['0x1234', 'must be 0x followed by 64 hex digits (a secp256k1 private key)'],
    [KEY.slice(2), 'must be 0x followed by 64 hex digits (a secp256k1 private key)'],
    [`0x${'0'.repeat(64)}`, 'must not be zero'],
  ])('refuses %s at start', (value, message) => {
    expect(problemsOf(() => loadConfig({ SERVICE_SIGNER_KEY: value }))).toEqual([{ key: 'SERVICE_SIGNER_KEY', message }]);
  });

  it('never reaches a log line', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ level: 'info', destination });
    logger.info({ SERVICE_SIGNER_KEY: KEY, config: { SERVICE_SIGNER_KEY: KEY } }, 'start');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(KEY.slice(2));
    expect(JSON.parse(lines[0]!)).toMatchObject({ SERVICE_SIGNER_KEY: '[redacted]', config: { SERVICE_SIGNER_KEY: '[redacted]' } });
  });
});
