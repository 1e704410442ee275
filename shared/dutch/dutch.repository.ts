import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { QuoteLegRow, QuoteRow } from '../quotes';
import type { DutchBidRow, DutchColumns, JsonObject } from './dutch.types';

type Queryable = Pick<EntityManager, 'query'>;

const DUTCH_COLUMNS = `id, dutch_phase, dutch_request, dutch_request_digest, taker_signature, compete_ends_at, exclusive_ms,
  exclusive_ends_at, awarded_at, opened_at, award, exclusive_salt, winner`;
const BID_COLUMNS = 'id, quote_id, maker, buy_override_bps, sell_override_bps, version, bid_at';

export type NewDutchQuote = Omit<QuoteRow, 'state' | 'created_at' | 'closed_at' | 'fill_tx_hash'> & {
  dutch_request: JsonObject;
  dutch_request_digest: string;
  taker_signature: string;
  taker_nonce: string;
  compete_ends_at: Date;
  exclusive_ms: number;
};

/** Queries of Dutch quotes' own columns and their bids. Phase changes are quote-state.ts's. */
export class DutchRepository {
  constructor(private readonly ds: DataSource) {}

  /** Inserts a Dutch quote and its legs in one statement; a reused taker nonce is a unique violation. */
  async insert(m: Queryable | null, q: NewDutchQuote, legs: QuoteLegRow[]): Promise<Date> {
    const col = <K extends keyof QuoteLegRow>(k: K) => legs.map((l) => l[k]);
    const rows: { created_at: Date }[] = await (m ?? this.ds).query(
      `WITH q AS (
         INSERT INTO quotes (id, chain_id, offer_format, polarity, strategy, taker_address, referrer, taker_salt, taker_address_hash,
           directions, pair_contract, expiry_timestamp, stream_token_hash, expires_at,
           dutch_phase, dutch_request, dutch_request_digest, taker_signature, taker_nonce, compete_ends_at, exclusive_ms)
         VALUES ($1,$2,'dutch_only',$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,'competing',$14,$15,$16,$17,$18,$19) RETURNING created_at
       ), l AS (
         INSERT INTO quote_legs (quote_id, idx, option_type, structure, direction, strike_wad, amount, start_exercise_timestamp, expiry_timestamp)
         SELECT $1, * FROM unnest($20::smallint[], $21::smallint[], $22::smallint[], $23::smallint[], $24::numeric[], $25::numeric[], $26::bigint[], $27::bigint[])
       )
       SELECT created_at FROM q`,
      [
        q.id, q.chain_id, q.polarity, q.strategy, q.taker_address, q.referrer, q.taker_salt, q.taker_address_hash, q.directions,
        q.pair_contract, q.expiry_timestamp, q.stream_token_hash, q.expires_at,
        JSON.stringify(q.dutch_request), q.dutch_request_digest, q.taker_signature, q.taker_nonce, q.compete_ends_at, q.exclusive_ms,
        col('idx'), col('option_type'), col('structure'), col('direction'), col('strike_wad'), col('amount'),
        col('start_exercise_timestamp'), col('expiry_timestamp'),
      ],
    );
    return rows[0].created_at;
  }

  async find(id: string, m: Queryable = this.ds): Promise<DutchColumns | null> {
    const rows: DutchColumns[] = await m.query(`SELECT ${DUTCH_COLUMNS} FROM quotes WHERE id = $1 AND offer_format = 'dutch_only'`, [id]);
    return rows[0] ?? null;
  }

  /**
   * Stores a maker's bid, replacing its earlier one on this quote (a new version, a new time:
   * a replaced bid ranks as of its replacement). The caller holds the quote's lock.
   */
  async upsertBid(m: Queryable, quoteId: string, maker: string, buyBps: number, sellBps: number): Promise<DutchBidRow & { replaced: boolean }> {
    const rows: (DutchBidRow & { replaced: boolean })[] = await m.query(
      `INSERT INTO dutch_bids (id, quote_id, maker, buy_override_bps, sell_override_bps) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (quote_id, maker) DO UPDATE
         SET buy_override_bps = EXCLUDED.buy_override_bps, sell_override_bps = EXCLUDED.sell_override_bps,
             version = dutch_bids.version + 1, bid_at = clock_timestamp()
       RETURNING ${BID_COLUMNS}, version > 1 AS replaced`,
      [randomUUID(), quoteId, maker, buyBps, sellBps],
    );
    return rows[0];
  }

  async findBid(id: string): Promise<DutchBidRow | null> {
    const rows: DutchBidRow[] = await this.ds.query(`SELECT ${BID_COLUMNS} FROM dutch_bids WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** The quote's bids, best first for the taker's side (`buy` = the taker buys the package); ties: the earlier bid. */
  async bidsBestFirst(quoteId: string, side: 'buy' | 'sell', m: Queryable = this.ds): Promise<DutchBidRow[]> {
    const column = side === 'buy' ? 'buy_override_bps' : 'sell_override_bps';
    return m.query(`SELECT ${BID_COLUMNS} FROM dutch_bids WHERE quote_id = $1 ORDER BY ${column} DESC, bid_at ASC, id ASC`, [quoteId]);
  }

  async markBidAnnounced(id: string, version: number): Promise<void> {
    await this.ds.query(`UPDATE dutch_bids SET announced_version = $2 WHERE id = $1 AND announced_version < $2`, [id, version]);
  }

  /**
   * The sweeper's Dutch backstop: unannounced Dutch quotes, competitions past their end, exclusive
   * windows past their end, and bids whose latest version was never announced.
   */
  async overdue(graceSeconds: number, limit: number): Promise<{ unannounced: string[]; award: string[]; open: string[]; bids: { id: string; version: number }[] }> {
    const live = `state = 'open' AND offer_format = 'dutch_only'`;
    const late = `< now() - make_interval(secs => $1)`;
    const [unannounced, award, open, bids] = await Promise.all([
      this.ds.query(`SELECT id FROM quotes WHERE offer_format = 'dutch_only' AND announced_at IS NULL AND created_at ${late} ORDER BY created_at LIMIT $2`, [graceSeconds, limit]),
      this.ds.query(`SELECT id FROM quotes WHERE ${live} AND dutch_phase = 'competing' AND compete_ends_at ${late} ORDER BY compete_ends_at LIMIT $2`, [graceSeconds, limit]),
      this.ds.query(`SELECT id FROM quotes WHERE ${live} AND dutch_phase = 'exclusive' AND exclusive_ends_at ${late} ORDER BY exclusive_ends_at LIMIT $2`, [graceSeconds, limit]),
      this.ds.query(`SELECT id, version FROM dutch_bids WHERE announced_version < version AND bid_at ${late} ORDER BY bid_at LIMIT $2`, [graceSeconds, limit]),
    ]);
    const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
    return { unannounced: ids(unannounced), award: ids(award), open: ids(open), bids };
  }
}
