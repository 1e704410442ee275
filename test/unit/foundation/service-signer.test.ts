import { Writable } from 'node:stream';
import { privateKeyToAccount } from 'viem/accounts';
import { ConfigError, loadConfig } from '../../../shared/platform/config';
import { createLogger } from '../../../shared/platform/logging';
import { DEVELOPMENT_SERVICE_SIGNER, serviceSigner } from '../../../shared/chain/service-signer';

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
  it('signs with the configured key', () => {
    const config = loadConfig({ SERVICE_SIGNER_KEY: KEY });
    expect(serviceSigner(config).address).toBe(privateKeyToAccount(KEY).address);
  });

  it('falls back to the public development key on a loopback server outside production', () => {
    expect(serviceSigner(loadConfig({})).address).toBe(DEVELOPMENT_SERVICE_SIGNER.address);
  });

  it('is required in production', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) });
    expect(problemsOf(() => serviceSigner(config))).toEqual([
      { key: 'SERVICE_SIGNER_KEY', message: 'required when NODE_ENV=production (0x and 64 hex digits)' },
    ]);
  });

  it('is required when the server is reachable from other machines', () => {
    const config = loadConfig({ HOST: '0.0.0.0', JWT_SECRET: 'x'.repeat(32) });
    expect(problemsOf(() => serviceSigner(config))[0]).toMatchObject({ key: 'SERVICE_SIGNER_KEY', message: expect.stringMatching(/^required when HOST 0\.0\.0\.0 is not a loopback address/) });
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
