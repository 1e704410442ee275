import type { DataSource } from 'typeorm';
import { QuoteRepository } from './quote.repository';
import {
  hashStreamToken,
  SIGNED_TOKEN_LENGTH,
  STREAM_TOKEN_PATTERN,
  type SignedStreamTokens,
  type StreamKind,
  type StreamTokenRecord,
  type StreamTokens,
} from '../platform/stream-tokens';

/**
 * A quote's stream token as the socket tier checks it on join.
 *
 * A signed token (what a standard quote's create hands out) is checked in two steps: its HMAC,
 * kind and expiry with no I/O, then its quote's row, read by primary key: the row must exist and
 * store this token's sha-256 (`quotes.stream_token_hash`, what the taker's REST poll checks too),
 * and a closed quote's stream stays open only QUOTE_STREAM_GRACE_SECONDS past its close. That row
 * is the revocation: a quote never committed, purged, or closed long ago opens nothing. Redis
 * holds nothing of such a token, so a Redis data loss (docs/FAULTS.md) cannot lose it.
 *
 * A random token (a Dutch quote's, or one minted before signed tokens) is looked up in Redis
 * first (where it was minted), then on the quote row by its hash; found there only, its record
 * is written back to Redis, so the publish script ties its topic's life to it again.
 */
export class QuoteStreamTokens {
  private readonly quotes: QuoteRepository;

  constructor(
    private readonly tokens: StreamTokens,
    private readonly signed: SignedStreamTokens,
    db: DataSource,
    private readonly graceSeconds: number,
  ) {
    this.quotes = new QuoteRepository(db);
  }

  async verify(kind: StreamKind, token: string): Promise<StreamTokenRecord | null> {
    if (typeof token !== 'string' || !STREAM_TOKEN_PATTERN.test(token)) return null;
    if (kind === 'rfq' && token.length === SIGNED_TOKEN_LENGTH) return this.verifySigned(token);
    const rec = await this.tokens.verify(kind, token);
    if (rec || kind !== 'rfq') return rec;
    const hash = hashStreamToken(token);
    const windowEnd = await this.quotes.streamTokenExpiry(hash);
    if (windowEnd === null) return null;
    const expiresAt = windowEnd + this.graceSeconds * 1000;
    if (expiresAt <= Date.now()) return null;
    await this.tokens.remember(kind, hash, expiresAt).catch(() => undefined);
    return { kind, expiresAt, meta: {} };
  }

  private async verifySigned(token: string): Promise<StreamTokenRecord | null> {
    const claim = this.signed.open('rfq', token);
    if (!claim) return null;
    const quote = await this.quotes.streamTokenQuote(claim.subject, hashStreamToken(token));
    if (!quote) return null;
    const closedUntil = quote.closedAt === null ? Infinity : quote.closedAt + this.graceSeconds * 1000;
    const expiresAt = Math.min(claim.expiresAt, closedUntil);
    if (expiresAt <= Date.now()) return null;
    return { kind: 'rfq', expiresAt, meta: { quote_id: claim.subject } };
  }
}
