import { hashSecret, KEY_PREFIX, looksLikeKeySecret, parseKeySecret } from '../../../shared/identity';
import { newKeySecret } from '../../../shared/identity/key-secrets';
import { secretMatches } from '../../../shared/platform/secrets';

describe('API key secrets', () => {
  it('carry a kind prefix, the key id and 256 random bits', () => {
    const maker = newKeySecret('maker');
    const taker = newKeySecret('taker');
    expect(maker.secret).toMatch(/^mk_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(taker.secret).toMatch(/^tk_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(KEY_PREFIX).toEqual({ maker: 'mk_', taker: 'tk_' });
    expect(parseKeySecret(maker.secret)).toEqual({ kind: 'maker', keyId: maker.keyId });
    expect(parseKeySecret(taker.secret)).toEqual({ kind: 'taker', keyId: taker.keyId });
    expect(newKeySecret('maker').secret).not.toBe(maker.secret);
  });

  it('are told from JWTs by their prefix, and malformed ones parse to null', () => {
    const { secret } = newKeySecret('maker');
    expect(looksLikeKeySecret(secret)).toBe(true);
    expect(looksLikeKeySecret('eyJhbGciOiJIUzI1NiJ9.e30.sig')).toBe(false);
    expect(parseKeySecret(`${secret}x`)).toBeNull();
    expect(parseKeySecret(secret.replace('mk_', 'xk_'))).toBeNull();
    expect(parseKeySecret('mk_short')).toBeNull();
  });

  it('are stored as sha-256 hex and compared against the hash', () => {
    const { secret } = newKeySecret('taker');
    const stored = hashSecret(secret);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(secretMatches(secret, stored)).toBe(true);
    const flipped = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
    expect(secretMatches(flipped, stored)).toBe(false);
    expect(secretMatches(secret, 'abcd')).toBe(false);
  });
});
