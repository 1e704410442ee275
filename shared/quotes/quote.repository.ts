import type { DataSource } from 'typeorm';
import { columnDefinitions, columnNames, idsWhere, pastGrace, type JsonColumns, type Queryable } from '../platform/db';
import type { OfferRow, QuoteLegRow, QuoteRow } from './quote.types';
import { QUOTE_STATE_SQL as QS } from './quote.sql';

/** A quote as its create writes it: the columns the database fills are left out. */
export type NewQuoteRow = Omit<QuoteRow, 'state' | 'created_at' | 'closed_at' | 'fill_tx_hash'>;

/** A quote's create: its row and its legs, as the group commit holds it and as its JSON is sent. */
export interface NewQuote {
  row: NewQuoteRow;
  legs: QuoteLegRow[];
}

/** The columns of a QuoteRow, cast to the types it declares. */
export const QUOTE_COLUMNS = `id, chain_id, state, offer_format, polarity, strategy, taker_address, referrer, taker_salt,
  taker_address_hash, directions, pair_contract, expiry_timestamp::float8 AS expiry_timestamp, stream_token_hash,
  expires_at, created_at, closed_at, fill_tx_hash, announced_at`;

/**
 * The columns a quote's create writes, the database filling the rest, as a NewQuoteRow's JSON
 * carries them (shared/platform/db/json-rows.ts). The order is QUOTE_INSERT_COLUMNS' (a Dutch
 * quote's VALUES list follows it).
 */
const QUOTE_JSON = {
  id: 'uuid',
  chain_id: 'integer',
  offer_format: 'text',
  polarity: 'text',
  strategy: 'text',
  taker_address: 'text',
  referrer: 'text',
  taker_salt: 'text',
  taker_address_hash: 'text',
  directions: 'smallint[]',
  pair_contract: 'text',
  expiry_timestamp: 'bigint',
  stream_token_hash: 'text',
  expires_at: 'timestamptz',
} as const satisfies JsonColumns<Exclude<keyof NewQuoteRow, 'announced_at'>>;

/** A leg's columns after its quote_id, as a QuoteLegRow's JSON carries them. */
const LEG_JSON = {
  idx: 'smallint',
  option_type: 'smallint',
  structure: 'smallint',
  direction: 'smallint',
  strike_wad: 'numeric',
  amount: 'numeric',
  start_exercise_timestamp: 'bigint',
  expiry_timestamp: 'bigint',
} as const satisfies JsonColumns<keyof QuoteLegRow>;

/** The columns a quote's create writes, the database filling the rest (a Dutch quote's create adds its own after them). */
export const QUOTE_INSERT_COLUMNS = columnNames(QUOTE_JSON);

/** The columns a leg's insert writes: every column of quote_legs. */
export const LEG_INSERT_COLUMNS = `quote_id, ${columnNames(LEG_JSON)}`;

/**
 * The legs of a JSON array of QuoteLegRows (`jsonb`, an SQL expression of type jsonb) as rows
 * `l`: select `<quote id>, l.*` for LEG_INSERT_COLUMNS.
 */
export function legsFromJson(jsonb: string): string {
  return `jsonb_to_recordset(${jsonb}) AS l(${columnDefinitions(LEG_JSON)})`;
}

/**
 * Quotes and their legs from ONE jsonb parameter, a JSON array of NewQuotes (`{ row, legs }`
 * objects, sent as they are held): one statement (a data-modifying CTE; the legs' foreign key is
 * checked at the end of the statement), one round trip, however many quotes. jsonb rather than
 * json: Postgres parses the text once, where json's functions parse each nested row and legs
 * array again and hash every object's keys (2-3x the parse time, docs/PERFORMANCE.md).
 */
const INSERT_QUOTES_SQL = `WITH n AS (
     SELECT r.*, x.legs FROM jsonb_to_recordset($1::jsonb) AS x("row" jsonb, legs jsonb), jsonb_to_record(x."row") AS r(${columnDefinitions(QUOTE_JSON)})
   ), q AS (
     INSERT INTO quotes (${QUOTE_INSERT_COLUMNS}) SELECT ${QUOTE_INSERT_COLUMNS} FROM n RETURNING id, created_at
   ), l AS (
     INSERT INTO quote_legs (${LEG_INSERT_COLUMNS}) SELECT n.id, l.* FROM n, ${legsFromJson('n.legs')}
   )
   SELECT id, created_at FROM q`;

export const LEG_COLUMNS = `idx, option_type, structure, direction, strike_wad::text AS strike_wad, amount::text AS amount,
  start_exercise_timestamp::float8 AS start_exercise_timestamp, expiry_timestamp::float8 AS expiry_timestamp`;

const OFFER_COLUMNS = `id, quote_id, chain_id, maker, offer_type, package_premium::text AS package_premium, maker_pays_taker, premium_token,
  nonce::text AS nonce, deadline::float8 AS deadline, signature, digest, created_at`;

/** What `insertOfferIfOpen` answers: the stored offer's time (null: not stored) and its quote as the statement saw it (null: no such quote). */
export interface OfferInsert {
  created_at: Date | null;
  state: QuoteRow['state'] | null;
  expires_at: Date | null;
}

/** Queries of quotes, their legs and offers. Raw SQL: the create path is hot and wants one round trip per table. */
export class QuoteRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Inserts a quote and its legs in ONE statement, so the create path needs no BEGIN/COMMIT
   * round trips: the group commit's statement for a batch of one.
   */
  async insertQuote(m: Queryable | null, q: NewQuoteRow, legs: QuoteLegRow[]): Promise<Date> {
    const rows: { id: string; created_at: Date }[] = await (m ?? this.ds).query(INSERT_QUOTES_SQL, [JSON.stringify([{ row: q, legs }])]);
    return rows[0].created_at;
  }

  /**
   * Inserts many quotes and all their legs in ONE statement (group commit, see
   * shared/platform/db/group-commit.ts): one round trip and one commit for every create that
   * arrived together. Answers each quote's created_at, in the order given.
   */
  async insertQuotes(quotes: NewQuote[]): Promise<Date[]> {
    const rows: { id: string; created_at: Date }[] = await this.ds.query(INSERT_QUOTES_SQL, [JSON.stringify(quotes)]);
    const createdAt = new Map(rows.map((r) => [r.id, r.created_at]));
    return quotes.map((x) => {
      const at = createdAt.get(x.row.id);
      if (!at) throw new Error(`quote ${x.row.id} was not inserted by its batch`);
      return at;
    });
  }

  async findQuote(id: string, m: Queryable = this.ds): Promise<QuoteRow | null> {
    const rows: QuoteRow[] = await m.query(`SELECT ${QUOTE_COLUMNS} FROM quotes WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** The quote row locked for the rest of the transaction, so an offer and the expiry cannot interleave. */
  async lockQuote(m: Queryable, id: string): Promise<QuoteRow | null> {
    const rows: QuoteRow[] = await m.query(`SELECT ${QUOTE_COLUMNS} FROM quotes WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] ?? null;
  }

  async legs(quoteId: string, m: Queryable = this.ds): Promise<QuoteLegRow[]> {
    return m.query(`SELECT ${LEG_COLUMNS} FROM quote_legs WHERE quote_id = $1 ORDER BY idx`, [quoteId]);
  }

  /**
   * Stores an offer if its quote is still open at `nowSeconds`, in one statement: the quote row
   * is locked (`FOR UPDATE` in the CTE, held to the statement's commit) before the insert reads
   * its state, so an offer and the expiry cannot interleave, as with an explicit transaction, at
   * one round trip instead of four. Answers the offer's `created_at` (null when nothing was
   * stored) and the quote's state and window as the statement saw them (null: no such quote), so
   * the caller can say why without reading again.
   */
  async insertOfferIfOpen(o: Omit<OfferRow, 'created_at'>, nowSeconds: number): Promise<OfferInsert> {
    const rows: OfferInsert[] = await this.ds.query(
      `WITH q AS (SELECT state, expires_at FROM quotes WHERE id = $2 FOR UPDATE),
       ins AS (
         INSERT INTO quote_offers (id, quote_id, chain_id, maker, offer_type, package_premium, maker_pays_taker, premium_token, nonce, deadline, signature, digest)
         SELECT $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12 FROM q WHERE q.state = ${QS.open} AND q.expires_at > to_timestamp($13)
         RETURNING created_at)
       SELECT (SELECT created_at FROM ins) AS created_at, (SELECT state FROM q) AS state, (SELECT expires_at FROM q) AS expires_at`,
      [
        o.id,
        o.quote_id,
        o.chain_id,
        o.maker,
        o.offer_type,
        o.package_premium,
        o.maker_pays_taker,
        o.premium_token,
        o.nonce,
        o.deadline,
        o.signature,
        o.digest,
        nowSeconds,
      ],
    );
    return rows[0];
  }

  /** Whether `(chain, maker, nonce)` already names a stored offer: the key of the unique index quote_offers_maker_nonce. */
  async nonceUsed(chainId: number, maker: string, nonce: string): Promise<boolean> {
    const rows: unknown[] = await this.ds.query(`SELECT 1 FROM quote_offers WHERE chain_id = $1 AND maker = $2 AND nonce = $3`, [chainId, maker, nonce]);
    return rows.length > 0;
  }

  /** An offer with its quote's stream token hash (where the taker hears it), in one read. */
  async findOfferToAnnounce(id: string): Promise<(OfferRow & { stream_token_hash: string; quote_expires_at: Date }) | null> {
    const rows: (OfferRow & { stream_token_hash: string; quote_expires_at: Date })[] = await this.ds.query(
      `SELECT o.*, q.stream_token_hash, q.expires_at AS quote_expires_at
         FROM (SELECT ${OFFER_COLUMNS} FROM quote_offers WHERE id = $1) o LEFT JOIN quotes q ON q.id = o.quote_id`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * Offers best first for the taker: ranked by what the taker nets (premium received counts up,
   * premium paid counts down), earlier offers first on a tie.
   */
  async offers(quoteId: string): Promise<OfferRow[]> {
    return this.ds.query(
      `SELECT ${OFFER_COLUMNS} FROM quote_offers WHERE quote_id = $1
       ORDER BY CASE WHEN maker_pays_taker THEN package_premium ELSE -package_premium END DESC, created_at ASC`,
      [quoteId],
    );
  }

  async markAnnounced(table: 'quotes' | 'quote_offers', id: string): Promise<void> {
    await this.ds.query(`UPDATE ${table} SET announced_at = now() WHERE id = $1 AND announced_at IS NULL`, [id]);
  }

  /** The result of the quote's latest close has been published. */
  async markResultPublished(id: string): Promise<void> {
    await this.ds.query(`UPDATE quotes SET result_published_at = now() WHERE id = $1 AND state <> ${QS.open}`, [id]);
  }

  /**
   * Work the sweeper must redo: unannounced quotes and offers, open quotes past their window,
   * and closed quotes whose result was never published after their latest close. Only package
   * quotes are this domain's to announce (QuoteNotifier.announce); a quote of another format is
   * announced, and swept, by its own domain.
   */
  async overdue(graceSeconds: number, limit: number): Promise<{ unannounced: string[]; offers: string[]; expired: string[]; unpublished: string[] }> {
    const ids = (from: string, where: string, orderBy: string) => idsWhere(this.ds, { from, where, orderBy }, graceSeconds, limit);
    const [unannounced, offers, expired, unpublished] = await Promise.all([
      ids('quotes', `announced_at IS NULL AND offer_format = 'package_only' AND ${pastGrace('created_at')}`, 'created_at'),
      ids('quote_offers', `announced_at IS NULL AND ${pastGrace('created_at')}`, 'created_at'),
      ids('quotes', `state = ${QS.open} AND ${pastGrace('expires_at')}`, 'expires_at'),
      ids('quotes', `state <> ${QS.open} AND (result_published_at IS NULL OR result_published_at < closed_at) AND ${pastGrace('closed_at')}`, 'closed_at'),
    ]);
    return { unannounced, offers, expired, unpublished };
  }

  /**
   * Open Dutch quotes and when their windows end (unix ms), soonest first: the expiry jobs a Redis
   * that lost its data no longer holds, rebuilt from here (workers/redis-loss.ts). A standard
   * quote has no expiry job: the expiry clock reads its end from this table.
   */
  async openExpiries(limit: number): Promise<{ id: string; at: number }[]> {
    const rows: { id: string; at: string }[] = await this.ds.query(
      `SELECT id, (extract(epoch FROM expires_at) * 1000)::bigint::text AS at FROM quotes
        WHERE state = ${QS.open} AND offer_format = 'dutch_only' ORDER BY expires_at LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ id: r.id, at: Number(r.at) }));
  }

  /** The soonest window end after `after` of an open standard quote (the index quotes_open_expiry), or null. */
  async nextExpiry(after: Date): Promise<Date | null> {
    const [row]: { at: Date | null }[] = await this.ds.query(
      `SELECT expires_at AS at FROM quotes WHERE state = ${QS.open} AND offer_format = 'package_only' AND expires_at > $1 ORDER BY expires_at LIMIT 1`,
      [after],
    );
    return row?.at ? new Date(row.at) : null;
  }

  /** Open standard quotes whose window ended by `now` and that were never announced. */
  async dueUnannounced(now: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.ds.query(
      `SELECT id FROM quotes WHERE state = ${QS.open} AND offer_format = 'package_only' AND expires_at <= $1 AND announced_at IS NULL
        ORDER BY expires_at LIMIT $2`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Deletes up to `limit` quotes closed more than `olderThanDays` ago, oldest first; their legs
   * and offers go with them (ON DELETE CASCADE). Rows another purge holds are skipped, not waited for.
   */
  async purgeClosed(olderThanDays: number, limit: number): Promise<number> {
    const [, count]: [unknown, number] = await this.ds.query(
      `DELETE FROM quotes WHERE id IN (
         SELECT id FROM quotes WHERE state <> ${QS.open} AND closed_at < now() - make_interval(days => $1)
         ORDER BY closed_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [olderThanDays, limit],
    );
    return count;
  }

  /** Makers that offered on a quote (each once). A Dutch quote's bidders are shared/dutch's (resultMakers there). */
  async offeringMakers(quoteId: string): Promise<`0x${string}`[]> {
    const rows: { maker: `0x${string}` }[] = await this.ds.query(`SELECT DISTINCT maker FROM quote_offers WHERE quote_id = $1 ORDER BY maker`, [quoteId]);
    return rows.map((r) => r.maker);
  }

  /** When the window of the quote whose stream token has this sha-256 ends (unix ms), or null: the join check a Redis that lost its data falls back to. */
  async streamTokenExpiry(tokenHash: string): Promise<number | null> {
    const rows: { expires: string }[] = await this.ds.query(
      `SELECT (extract(epoch FROM expires_at) * 1000)::bigint::text AS expires FROM quotes WHERE stream_token_hash = $1`,
      [tokenHash],
    );
    return rows.length === 0 ? null : Number(rows[0].expires);
  }

  /**
   * The quote a signed stream token names, when its row stores this token's sha-256: `closedAt`
   * (unix ms) once the quote has closed, else null. Null altogether when no such row exists (never
   * committed, purged, or another token): the join check of a signed token.
   */
  async streamTokenQuote(quoteId: string, tokenHash: string): Promise<{ closedAt: number | null } | null> {
    const rows: { closed: string | null }[] = await this.ds.query(
      `SELECT (extract(epoch FROM closed_at) * 1000)::bigint::text AS closed FROM quotes WHERE id = $1 AND stream_token_hash = $2`,
      [quoteId, tokenHash],
    );
    if (rows.length === 0) return null;
    return { closedAt: rows[0].closed === null ? null : Number(rows[0].closed) };
  }
}
