import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { idsWhere, pastGrace, type Queryable } from '../platform/db';
import type { QuoteLegRow, QuoteRow } from '../quotes';
import { LEG_COLUMNS, LEG_INSERT_COLUMNS, legsFromJson, QUOTE_COLUMNS, QUOTE_INSERT_COLUMNS } from '../quotes';
import type { DutchBidRow, DutchColumns, DutchQuote, DutchProgress, JsonObject } from './dutch.types';
import { QUOTE_STATE_SQL as QS } from '../quotes';
import { isMakerOrganizationWallet } from '../identity';
import type { DutchPhase } from '../../wire/src/dutch.wire';
import { DUTCH_PHASE_SQL as DP } from './dutch.sql';

const DUTCH_COLUMNS = `id, dutch_phase, dutch_request, dutch_request_digest, taker_signature, compete_ends_at, exclusive_ms,
  exclusive_ends_at, awarded_at, opened_at, award, winner`;
const BID_COLUMNS = 'id, quote_id, maker, filler, buy_override_bps, sell_override_bps, version, bid_at';
/** A quote row and its Dutch columns in one: what a batch decides and publishes from. */
const DUTCH_QUOTE_COLUMNS = `${QUOTE_COLUMNS}, dutch_phase, dutch_request, dutch_request_digest, taker_signature, compete_ends_at, exclusive_ms,
  exclusive_ends_at, awarded_at, opened_at, award, winner`;

/** Splits a combined row into the quote and its Dutch columns (the views take them apart). */
function splitRow(r: QuoteRow & DutchColumns): DutchQuote {
  const {
    dutch_phase,
    dutch_request,
    dutch_request_digest,
    taker_signature,
    compete_ends_at,
    exclusive_ms,
    exclusive_ends_at,
    awarded_at,
    opened_at,
    award,
    winner,
    ...q
  } = r;
  const d: DutchColumns = {
    id: r.id,
    dutch_phase,
    dutch_request,
    dutch_request_digest,
    taker_signature,
    compete_ends_at,
    exclusive_ms,
    exclusive_ends_at,
    awarded_at,
    opened_at,
    award,
    winner,
  };
  return { q, d, legs: [] };
}

export type NewDutchQuote = Omit<QuoteRow, 'state' | 'created_at' | 'closed_at' | 'fill_tx_hash'> & {
  dutch_request: JsonObject;
  dutch_request_digest: string;
  taker_signature: string;
  taker_nonce: string;
  compete_ends_at: Date;
  exclusive_ms: number;
  /** The taker organization of the delegate that created it (null without one): its unfillable windows count for that organization too. */
  taker_organization_id?: string | null;
};

/** Queries of Dutch quotes' own columns and their bids. Phase changes are quote-state.ts's. */
export class DutchRepository {
  constructor(private readonly ds: DataSource) {}

  /** Inserts a Dutch quote and its legs in one statement; a reused taker nonce is a unique violation. */
  async insert(m: Queryable | null, q: NewDutchQuote, legs: QuoteLegRow[]): Promise<Date> {
    const rows: { created_at: Date }[] = await (m ?? this.ds).query(
      `WITH q AS (
         INSERT INTO quotes (${QUOTE_INSERT_COLUMNS},
           dutch_phase, dutch_request, dutch_request_digest, taker_signature, taker_nonce, compete_ends_at, exclusive_ms, taker_organization_id)
         VALUES ($1,$2,'dutch_only',$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,${DP.competing},$14,$15,$16,$17,$18,$19,$21) RETURNING created_at
       ), l AS (
         INSERT INTO quote_legs (${LEG_INSERT_COLUMNS})
         SELECT $1, l.* FROM ${legsFromJson('$20::jsonb')}
       )
       SELECT created_at FROM q`,
      [
        q.id,
        q.chain_id,
        q.polarity,
        q.strategy,
        q.taker_address,
        q.referrer,
        q.taker_salt,
        q.taker_address_hash,
        q.directions,
        q.pair_contract,
        q.expiry_timestamp,
        q.stream_token_hash,
        q.expires_at,
        JSON.stringify(q.dutch_request),
        q.dutch_request_digest,
        q.taker_signature,
        q.taker_nonce,
        q.compete_ends_at,
        q.exclusive_ms,
        // the legs as one jsonb parameter, as a standard quote's create sends them (legsFromJson)
        JSON.stringify(legs),
        q.taker_organization_id ?? null,
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
   * a replaced bid ranks as of its replacement). `filler` is the address that will call
   * executeDutchFill if the bid wins (the maker's own wallet by default). The caller holds the quote's lock.
   */
  async upsertBid(
    m: Queryable,
    quoteId: string,
    maker: string,
    buyBps: number,
    sellBps: number,
    filler: string = maker,
    organizationId: string | null = null,
  ): Promise<DutchBidRow & { replaced: boolean }> {
    const rows: (DutchBidRow & { replaced: boolean })[] = await m.query(
      `INSERT INTO dutch_bids (id, quote_id, maker, buy_override_bps, sell_override_bps, filler, organization_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (quote_id, maker) DO UPDATE
         SET buy_override_bps = EXCLUDED.buy_override_bps, sell_override_bps = EXCLUDED.sell_override_bps, filler = EXCLUDED.filler,
             organization_id = EXCLUDED.organization_id, version = dutch_bids.version + 1, bid_at = clock_timestamp()
       RETURNING ${BID_COLUMNS}, version > 1 AS replaced`,
      [randomUUID(), quoteId, maker, buyBps, sellBps, filler, organizationId],
    );
    return rows[0];
  }

  /**
   * Whether `address` is a wallet the maker organization registered: one of its members, or the
   * bot wallet of one of its active maker keys. Such a wallet may be named as a bid's filler
   * without signing for it.
   */
  async isOrganizationWallet(organizationId: string, address: string): Promise<boolean> {
    return isMakerOrganizationWallet(this.ds, organizationId, address);
  }

  async findBid(id: string): Promise<DutchBidRow | null> {
    const rows: DutchBidRow[] = await this.ds.query(`SELECT ${BID_COLUMNS} FROM dutch_bids WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  /** Makers that bid on a quote (each once): they hear its result (resultMakers). */
  async biddingMakers(quoteId: string): Promise<`0x${string}`[]> {
    const rows: { maker: `0x${string}` }[] = await this.ds.query(`SELECT DISTINCT maker FROM dutch_bids WHERE quote_id = $1 ORDER BY maker`, [quoteId]);
    return rows.map((r) => r.maker);
  }

  /** The quote's bids, best first for the taker's side (`buy` = the taker buys the package); ties: the earlier bid. */
  async bidsBestFirst(quoteId: string, side: 'buy' | 'sell', m: Queryable = this.ds): Promise<DutchBidRow[]> {
    const column = side === 'buy' ? 'buy_override_bps' : 'sell_override_bps';
    return m.query(`SELECT ${BID_COLUMNS} FROM dutch_bids WHERE quote_id = $1 ORDER BY ${column} DESC, bid_at ASC, id ASC`, [quoteId]);
  }

  /** Where a Dutch quote stands, in one read: what a phase job checks before doing anything. */
  async progress(id: string): Promise<DutchProgress | null> {
    const rows: DutchProgress[] = await this.ds.query(
      `SELECT id, state, dutch_phase, compete_ends_at, exclusive_ends_at, exclusive_ms, expires_at, awarded_at, opened_at, winner, dutch_published_phase
         FROM quotes WHERE id = $1 AND offer_format = 'dutch_only'`,
      [id],
    );
    return rows[0] ?? null;
  }

  /**
   * Locks the competitions a batch awards: quote `id` (if any) and up to `limit` others due by `now`,
   * still competing. Rows another run holds (a concurrent batch, a bid being stored) are
   * skipped, not waited for: that run decides them, and racing batches split the due set
   * instead of queueing behind each other's signatures.
   */
  async lockCompetitions(m: Queryable, id: string | null, now: Date, limit: number): Promise<DutchQuote[]> {
    const rows: (QuoteRow & DutchColumns)[] = await m.query(
      `SELECT ${DUTCH_QUOTE_COLUMNS} FROM quotes
        WHERE state = ${QS.open} AND offer_format = 'dutch_only' AND dutch_phase = ${DP.competing} AND (id = $1 OR compete_ends_at <= $2)
        ORDER BY id = $1 DESC, compete_ends_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [id, now, limit + 1],
    );
    return rows.map(splitRow);
  }

  /** The earliest deadline after `after` of a live auction (a competition's or an exclusive window's end), or null when none is pending. */
  async nextDeadline(after: Date): Promise<Date | null> {
    const [row]: { at: Date | null }[] = await this.ds.query(
      `SELECT least(
         (SELECT compete_ends_at FROM quotes WHERE state = ${QS.open} AND dutch_phase = ${DP.competing} AND compete_ends_at > $1 ORDER BY compete_ends_at LIMIT 1),
         (SELECT exclusive_ends_at FROM quotes WHERE state = ${QS.open} AND dutch_phase = ${DP.exclusive} AND exclusive_ends_at > $1 ORDER BY exclusive_ends_at LIMIT 1)) AS at`,
      [after],
    );
    return row?.at ? new Date(row.at) : null;
  }

  /** Quotes with their Dutch columns and legs, for publishing. */
  async loadMany(ids: readonly string[], m: Queryable = this.ds): Promise<DutchQuote[]> {
    if (ids.length === 0) return [];
    const [rows, legs] = await Promise.all([
      m.query(`SELECT ${DUTCH_QUOTE_COLUMNS} FROM quotes WHERE id = ANY($1::uuid[]) AND offer_format = 'dutch_only'`, [ids]) as Promise<
        (QuoteRow & DutchColumns)[]
      >,
      this.legsOf(ids, m),
    ]);
    return rows.map((r) => ({ ...splitRow(r), legs: legs.get(r.id) ?? [] }));
  }

  /** The legs of several quotes in one query, by quote id. */
  async legsOf(ids: readonly string[], m: Queryable = this.ds): Promise<Map<string, QuoteLegRow[]>> {
    const rows: (QuoteLegRow & { quote_id: string })[] = await m.query(
      `SELECT quote_id, ${LEG_COLUMNS} FROM quote_legs WHERE quote_id = ANY($1::uuid[]) ORDER BY quote_id, idx`,
      [ids],
    );
    const out = new Map<string, QuoteLegRow[]>();
    for (const { quote_id, ...leg } of rows) {
      const list = out.get(quote_id) ?? [];
      list.push(leg);
      out.set(quote_id, list);
    }
    return out;
  }

  /** The best bid of each quote for its taker's side (ties: the earlier bid), in one query; quotes without bids are absent. */
  async bestBids(m: Queryable, quotes: readonly { id: string; side: 'buy' | 'sell' }[]): Promise<Map<string, DutchBidRow>> {
    if (quotes.length === 0) return new Map();
    const rows: DutchBidRow[] = await m.query(
      `SELECT DISTINCT ON (b.quote_id) ${BID_COLUMNS.split(', ')
        .map((c) => `b.${c}`)
        .join(', ')}
         FROM dutch_bids b JOIN unnest($1::uuid[], $2::text[]) AS s(quote_id, side) ON s.quote_id = b.quote_id
        ORDER BY b.quote_id, CASE WHEN s.side = 'buy' THEN b.buy_override_bps ELSE b.sell_override_bps END DESC, b.bid_at ASC, b.id ASC`,
      [quotes.map((q) => q.id), quotes.map((q) => q.side)],
    );
    return new Map(rows.map((r) => [r.quote_id, r]));
  }

  /**
   * Records that these quotes' payloads of `phase` went out. Never moves back from `open` to
   * `exclusive` (a late re-publish of the award after the opening).
   */
  async markPublished(ids: readonly string[], phase: Exclude<DutchPhase, 'competing'>): Promise<void> {
    if (ids.length === 0) return;
    await this.ds.query(`UPDATE quotes SET dutch_published_phase = $2 WHERE id = ANY($1::uuid[]) AND (dutch_published_phase IS NULL OR $2 = ${DP.open})`, [
      ids,
      phase,
    ]);
  }

  async markBidAnnounced(id: string, version: number): Promise<void> {
    await this.ds.query(`UPDATE dutch_bids SET announced_version = $2 WHERE id = $1 AND announced_version < $2`, [id, version]);
  }

  /**
   * The sweeper's Dutch backstop: unannounced Dutch quotes, competitions past their end, exclusive
   * windows past their end, awards and openings whose publish never happened, and bids whose
   * latest version was never announced.
   */
  async overdue(
    graceSeconds: number,
    limit: number,
  ): Promise<{ unannounced: string[]; award: string[]; open: string[]; bids: { id: string; version: number }[] }> {
    const live = `state = ${QS.open} AND offer_format = 'dutch_only'`;
    const ids = (where: string, orderBy: string) => idsWhere(this.ds, { from: 'quotes', where, orderBy }, graceSeconds, limit);
    const [unannounced, award, open, bids] = await Promise.all([
      ids(`offer_format = 'dutch_only' AND announced_at IS NULL AND ${pastGrace('created_at')}`, 'created_at'),
      // Overdue, or decided by a batch whose publish never happened (its worker died in between).
      ids(
        `${live} AND ((dutch_phase = ${DP.competing} AND ${pastGrace('compete_ends_at')})
           OR (dutch_phase <> ${DP.competing} AND dutch_published_phase IS NULL AND ${pastGrace('awarded_at')}))`,
        'compete_ends_at',
      ),
      ids(
        `${live} AND ((dutch_phase = ${DP.exclusive} AND ${pastGrace('exclusive_ends_at')})
           OR (dutch_phase = ${DP.open} AND winner IS NOT NULL AND dutch_published_phase IS DISTINCT FROM ${DP.open} AND ${pastGrace('opened_at')}))`,
        'exclusive_ends_at',
      ),
      // A bid's id alone is not enough: the sweeper re-announces its latest version.
      this.ds.query<{ id: string; version: number }[]>(
        `SELECT id, version FROM dutch_bids WHERE announced_version < version AND ${pastGrace('bid_at')} ORDER BY bid_at LIMIT $2`,
        [graceSeconds, limit],
      ),
    ]);
    return { unannounced, award, open, bids };
  }
}
