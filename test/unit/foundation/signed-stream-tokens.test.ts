import { randomUUID } from 'node:crypto';
import { SignedStreamTokens, SIGNED_TOKEN_LENGTH, STREAM_TOKEN_PATTERN, streamTokenKeys } from '../../../shared/platform/stream-tokens';

const OLD = 'o'.repeat(40);
const NEW = 'n'.repeat(40);
const NEXT = 'x'.repeat(40);
const T0 = 1_800_000_000_000;

/** Signed stream tokens (shared/platform/stream-tokens/signed-stream-tokens.ts): what they prove without any store. */
describe('signed stream tokens', () => {
  let now = T0;
  const clock = () => now;
  const withKeys = (current: string, previous?: string) =>
    new SignedStreamTokens(streamTokenKeys({ STREAM_TOKEN_SECRET: current, STREAM_TOKEN_SECRET_PREVIOUS: previous }), clock);
  beforeEach(() => {
    now = T0;
  });

  it('a valid token opens for its kind, with its subject and end, and fits the token pattern', () => {
    const tokens = withKeys(NEW);
    const id = randomUUID();
    const token = tokens.mint('rfq', id, T0 + 60_000);
    expect(token).toMatch(STREAM_TOKEN_PATTERN);
    expect(token).toHaveLength(SIGNED_TOKEN_LENGTH);
    expect(tokens.open('rfq', token)).toEqual({ kind: 'rfq', subject: id, expiresAt: T0 + 60_000 });
    // Two tokens for the same quote and end differ (the nonce): neither is derivable from the other.
    expect(tokens.mint('rfq', id, T0 + 60_000)).not.toBe(token);
  });

  it('an expired token opens nothing, from its end on', () => {
    const tokens = withKeys(NEW);
    const token = tokens.mint('rfq', randomUUID(), T0 + 1000);
    now = T0 + 999;
    expect(tokens.open('rfq', token)).not.toBeNull();
    now = T0 + 1000;
    expect(tokens.open('rfq', token)).toBeNull();
  });

  it('a token of another kind opens nothing', () => {
    const tokens = withKeys(NEW);
    const token = tokens.mint('rfq', randomUUID(), T0 + 60_000);
    expect(tokens.open('explore_clob', token)).toBeNull();
    expect(tokens.open('explore_loan', token)).toBeNull();
  });

  it('a tampered token opens nothing: any changed byte, a longer end, a shorter or padded token', () => {
    const tokens = withKeys(NEW);
    const token = tokens.mint('rfq', randomUUID(), T0 + 60_000);
    const raw = Buffer.from(token, 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const changed = Buffer.from(raw);
      changed[i] ^= 0x01;
      expect(tokens.open('rfq', changed.toString('base64url'))).toBeNull();
    }
    const later = Buffer.from(raw);
    later.writeUIntBE(T0 + 86_400_000, 2, 6);
    expect(tokens.open('rfq', later.toString('base64url'))).toBeNull();
    expect(tokens.open('rfq', token.slice(1))).toBeNull();
    expect(tokens.open('rfq', `${token}=`)).toBeNull();
    expect(tokens.open('rfq', 'A'.repeat(SIGNED_TOKEN_LENGTH))).toBeNull();
  });

  it('a rotated key: tokens of the previous key still open, tokens of the key before are refused, new ones use the current key', () => {
    const before = withKeys(OLD).mint('rfq', randomUUID(), T0 + 60_000);
    const rotated = withKeys(NEW, OLD);
    expect(rotated.open('rfq', before)).not.toBeNull();
    const minted = rotated.mint('rfq', randomUUID(), T0 + 60_000);
    expect(withKeys(NEW).open('rfq', minted)).not.toBeNull();
    expect(withKeys(OLD).open('rfq', minted)).toBeNull();
    // Rotated once more, the first key verifies nothing.
    expect(withKeys(NEXT, NEW).open('rfq', before)).toBeNull();
    expect(withKeys(NEXT, NEW).open('rfq', minted)).not.toBeNull();
  });

  it('without STREAM_TOKEN_SECRET the key derives from JWT_SECRET (so every role agrees), and is not that secret', () => {
    const jwt = 'j'.repeat(40);
    const fromJwt = new SignedStreamTokens(streamTokenKeys({ JWT_SECRET: jwt }), clock);
    const token = fromJwt.mint('rfq', randomUUID(), T0 + 60_000);
    expect(new SignedStreamTokens(streamTokenKeys({ JWT_SECRET: jwt }), clock).open('rfq', token)).not.toBeNull();
    expect(withKeys(jwt).open('rfq', token)).not.toBeNull();
    expect(streamTokenKeys({ JWT_SECRET: jwt }).current.equals(Buffer.from(jwt))).toBe(false);
    expect(new SignedStreamTokens(streamTokenKeys({ JWT_SECRET: 'k'.repeat(40) }), clock).open('rfq', token)).toBeNull();
  });

  it('refuses to mint what it could not verify: an unknown kind, a subject that is not a uuid, a bad end', () => {
    const tokens = withKeys(NEW);
    expect(() => tokens.mint('nope' as never, randomUUID(), T0 + 1)).toThrow(/unknown stream kind/);
    expect(() => tokens.mint('rfq', 'not-a-uuid', T0 + 1)).toThrow(/uuid/);
    expect(() => tokens.mint('rfq', randomUUID(), 0)).toThrow(/expiry/);
  });
});
