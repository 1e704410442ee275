import { SignJWT } from 'jose';
import { ConfigError, loadConfig } from '../../../shared/platform/config';
import { jwtKey, TokenIssuer } from '../../../shared/identity/jwt-tokens';

const address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const org = '6f1c1b8e-9d0a-4c1e-8d3f-2b7a5e4c9a10';
const keyId = '0b0f6a51-3c2e-4f7e-9a55-0f4bd2f8c111';

describe('session and delegate JWTs', () => {
  const config = loadConfig({ JWT_SECRET: 'x'.repeat(40) });
  const tokens = new TokenIssuer(config);

  it('a session carries typ siwe, issuer, audience and the wallet as subject', async () => {
    const { token, expiresIn } = await tokens.signSession(address);
    expect(expiresIn).toBe(config.SESSION_TTL_SECONDS);
    const v = await tokens.verify(token);
    expect(v).toEqual({ typ: 'siwe', address, expiresAt: expect.any(Number) });
    expect(v!.expiresAt).toBeGreaterThan(Date.now() + (expiresIn - 5) * 1000);
  });

  it('a delegate carries its organization and key_id only when minted with a key', async () => {
    const withKey = await tokens.verify(await tokens.signDelegate({ address, organizationId: org, keyId, expiresIn: 60 }));
    expect(withKey).toEqual({ typ: 'delegate', address, organizationId: org, keyId, expiresAt: expect.any(Number) });
    const admin = await tokens.verify(await tokens.signDelegate({ address, organizationId: org, keyId: null, expiresIn: 60 }));
    expect(admin).toEqual({ typ: 'delegate', address, organizationId: org, keyId: null, expiresAt: expect.any(Number) });
  });

  it('refuses tokens from another secret, issuer or audience, and unknown typ', async () => {
    const { token } = await tokens.signSession(address);
    expect(await new TokenIssuer(loadConfig({ JWT_SECRET: 'y'.repeat(40) })).verify(token)).toBeNull();
    expect(await new TokenIssuer(loadConfig({ JWT_SECRET: 'x'.repeat(40), JWT_ISSUER: 'other' })).verify(token)).toBeNull();
    expect(await new TokenIssuer(loadConfig({ JWT_SECRET: 'x'.repeat(40), JWT_AUDIENCE: 'other' })).verify(token)).toBeNull();
    const forged = await new SignJWT({ typ: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(config.JWT_ISSUER)
      .setAudience(config.JWT_AUDIENCE)
      .setSubject(address)
      .setExpirationTime('1h')
      .sign(jwtKey(config));
    expect(await tokens.verify(forged)).toBeNull();
    expect(await tokens.verify('not.a.jwt')).toBeNull();
  });

  it('refuses an expired token', async () => {
    const expired = await new SignJWT({ typ: 'siwe' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(config.JWT_ISSUER)
      .setAudience(config.JWT_AUDIENCE)
      .setSubject(address)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 1)
      .sign(jwtKey(config));
    expect(await tokens.verify(expired)).toBeNull();
  });

  it('production needs a JWT_SECRET of at least 32 characters; development has a default', () => {
    expect(() => jwtKey(loadConfig({ NODE_ENV: 'production' }))).toThrow(ConfigError);
    expect(() => loadConfig({ JWT_SECRET: 'short' })).toThrow(/JWT_SECRET: must be at least 32 characters/);
    expect(jwtKey(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'z'.repeat(32) }))).toHaveLength(32);
    expect(jwtKey(loadConfig({})).length).toBeGreaterThanOrEqual(32);
  });

  it('auth config parses the geoblock list and keeps SIWE statements on one line', () => {
    expect(loadConfig({ GEOBLOCK_COUNTRIES: 'kp, IR' }).GEOBLOCK_COUNTRIES).toEqual(['KP', 'IR']);
    expect(loadConfig({}).GEOBLOCK_COUNTRIES).toEqual([]);
    expect(() => loadConfig({ GEOBLOCK_COUNTRIES: 'KPX' })).toThrow(/GEOBLOCK_COUNTRIES/);
    expect(() => loadConfig({ SIWE_STATEMENT: 'two\nlines' })).toThrow(/SIWE_STATEMENT: must be one line/);
  });
});
