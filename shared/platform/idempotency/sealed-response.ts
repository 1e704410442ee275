import { createCipheriv, createDecipheriv, createHmac, createHash, hkdfSync, randomBytes } from 'node:crypto';

const INFO = 'options-rfq idempotency v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * What one (route, caller, Idempotency-Key) needs to find, check and read its first response.
 * Everything comes from the key and the caller together: the stored row is looked up by a value
 * that reveals neither, and the response is readable only by whoever presents both again.
 */
export interface ReplayKeys {
  /** Row id: 32 bytes of the derivation, hex. */
  lookup: string;
  /** AES-256-GCM key of the stored response. */
  cipherKey: Buffer;
  /** HMAC key of the request fingerprint, so a stored fingerprint cannot be tested against guessed bodies. */
  macKey: Buffer;
}

/** HKDF-SHA256 over the Idempotency-Key, salted with the route scope and the caller. */
export function deriveReplayKeys(scope: string, caller: string, key: string): ReplayKeys {
  const salt = createHash('sha256').update(`${scope}\u0000${caller}`).digest();
  const okm = Buffer.from(hkdfSync('sha256', Buffer.from(key, 'utf8'), salt, INFO, 96));
  return { lookup: okm.subarray(0, 32).toString('hex'), cipherKey: okm.subarray(32, 64), macKey: okm.subarray(64, 96) };
}

/** Canonical JSON: keys sorted, so field order does not make a "different" request. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** The request's fingerprint under the caller's MAC key. */
export function requestMac(keys: ReplayKeys, body: unknown): string {
  return createHmac('sha256', keys.macKey)
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

/** Encrypts a response; the row id is authenticated with it, so a sealed value cannot be moved to another row. */
export function seal(keys: ReplayKeys, value: unknown): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keys.cipherKey, iv);
  cipher.setAAD(Buffer.from(keys.lookup, 'utf8'));
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

/** Decrypts what `seal` stored; throws when the keys are not the ones it was sealed with. */
export function open<T>(keys: ReplayKeys, sealed: string): T {
  const raw = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keys.cipherKey, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(keys.lookup, 'utf8'));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  return JSON.parse(text) as T;
}
