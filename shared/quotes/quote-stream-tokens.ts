import type { DataSource } from 'typeorm';
import { QuoteRepository } from './quote.repository';
import { hashStreamToken, STREAM_TOKEN_PATTERN, type StreamKind, type StreamTokenRecord, type StreamTokens } from '../platform/stream-tokens';

/**
 * A quote's stream token as the socket tier checks it on join: Redis first (where the token is
 * minted), then the quote row, which stores the token's sha-256 (`quotes.stream_token_hash`,
 * what the taker's REST poll checks too). A Redis that lost its data (docs/FAULTS.md, "Redis data
 * loss") therefore loses no taker's stream: the token still joins until its quote's window plus
 * QUOTE_STREAM_GRACE_SECONDS, and its record is written back to Redis on the way.
 */
export class QuoteStreamTokens {
  constructor(
    private readonly tokens: StreamTokens,
    private readonly db: DataSource,
    private readonly graceSeconds: number,
  ) {}

  async verify(kind: StreamKind, token: string): Promise<StreamTokenRecord | null> {
    const rec = await this.tokens.verify(kind, token);
    if (rec || kind !== 'rfq' || typeof token !== 'string' || !STREAM_TOKEN_PATTERN.test(token)) return rec;
    const hash = hashStreamToken(token);
    const windowEnd = await new QuoteRepository(this.db).streamTokenExpiry(hash);
    if (windowEnd === null) return null;
    const expiresAt = windowEnd + this.graceSeconds * 1000;
    if (expiresAt <= Date.now()) return null;
    await this.tokens.remember(kind, hash, expiresAt).catch(() => undefined);
    return { kind, expiresAt, meta: {} };
  }
}
