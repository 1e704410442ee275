import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `indexer_clob_trader_sketch`: one HyperLogLog sketch of the distinct traders per pair and UTC
 * day (2,048 one-byte registers), so a summary's unique traders over a long window merges one
 * row per day instead of counting distinct wallets over every trader-day of the window
 * (docs/EXPLORE.md, "Unique traders"). Kept by statement triggers on `indexer_clob_traders`: a
 * statement that adds or removes trader-days rebuilds the sketches of the days it touched from
 * that table, in the same transaction, so a write and a reorg's rollback leave every sketch
 * equal to one built from scratch (a fill count changing leaves the trader-days, and the sketch,
 * as they are).
 *
 * Register of a trader: the low 11 bits of `hashtextextended(trader, 0)` pick it, its rank is
 * the position of the first 1 bit in the next 53 bits (54 when they are all zero); a register
 * holds the highest rank it was given. The estimate is made where the registers are read
 * (shared/explore/clob/trader-sketch.ts).
 */
export const SKETCH_REGISTERS = 2048;

const KEYS = 'SELECT DISTINCT chain_id, pair, day FROM';

/** Rebuilds the sketches of the days in `keys` from indexer_clob_traders; a day left without traders loses its sketch. */
const rebuild = (keys: string) => `
  INSERT INTO indexer_clob_trader_sketch AS s (chain_id, pair, day, registers)
  SELECT k.chain_id, k.pair, k.day, indexer_trader_sketch_of(k.chain_id, k.pair, k.day)
    FROM (${keys}) k
   WHERE EXISTS (SELECT 1 FROM indexer_clob_traders t WHERE t.chain_id = k.chain_id AND t.pair = k.pair AND t.day = k.day)
  ON CONFLICT (chain_id, pair, day) DO UPDATE SET registers = EXCLUDED.registers;
  DELETE FROM indexer_clob_trader_sketch s USING (${keys}) k
   WHERE s.chain_id = k.chain_id AND s.pair = k.pair AND s.day = k.day
     AND NOT EXISTS (SELECT 1 FROM indexer_clob_traders t WHERE t.chain_id = k.chain_id AND t.pair = k.pair AND t.day = k.day);`;

export class TraderSketches1764007700200 implements MigrationInterface {
  name = 'TraderSketches1764007700200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE indexer_clob_trader_sketch (
        chain_id  integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        pair      text NOT NULL,
        day       date NOT NULL,
        registers bytea NOT NULL CHECK (length(registers) = ${SKETCH_REGISTERS}),
        PRIMARY KEY (chain_id, pair, day)
      )`);
    // The sketch of one pair's day, built from its trader-days.
    await q.query(`
      CREATE FUNCTION indexer_trader_sketch_of(p_chain integer, p_pair text, p_day date) RETURNS bytea LANGUAGE sql STABLE AS $fn$
        SELECT decode(string_agg(lpad(to_hex(COALESCE(r.rank, 0)), 2, '0'), '' ORDER BY i.slot), 'hex')
          FROM generate_series(0, ${SKETCH_REGISTERS - 1}) AS i(slot)
          LEFT JOIN (
            SELECT (h & ${SKETCH_REGISTERS - 1})::int AS slot, max(54 - length(ltrim(((h >> 11) & 9007199254740991)::bit(53)::text, '0'))) AS rank
              FROM (SELECT hashtextextended(trader, 0) AS h FROM indexer_clob_traders WHERE chain_id = p_chain AND pair = p_pair AND day = p_day) t
             GROUP BY 1
          ) r ON r.slot = i.slot
      $fn$`);
    await q.query(`
      CREATE FUNCTION indexer_clob_trader_sketch_from_traders() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
          IF TG_OP = 'INSERT' THEN ${rebuild(`${KEYS} new_rows`)}
          ELSE ${rebuild(`${KEYS} old_rows`)}
          END IF;
          RETURN NULL;
        END $fn$`);
    await q.query(
      `CREATE TRIGGER indexer_clob_traders_sketch_ins AFTER INSERT ON indexer_clob_traders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION indexer_clob_trader_sketch_from_traders()`,
    );
    await q.query(
      `CREATE TRIGGER indexer_clob_traders_sketch_del AFTER DELETE ON indexer_clob_traders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION indexer_clob_trader_sketch_from_traders()`,
    );
    // What history exists already is sketched once; from here on the triggers keep the sketches.
    await q.query(`
      INSERT INTO indexer_clob_trader_sketch (chain_id, pair, day, registers)
      SELECT chain_id, pair, day, indexer_trader_sketch_of(chain_id, pair, day) FROM (SELECT DISTINCT chain_id, pair, day FROM indexer_clob_traders) d`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER indexer_clob_traders_sketch_ins ON indexer_clob_traders`);
    await q.query(`DROP TRIGGER indexer_clob_traders_sketch_del ON indexer_clob_traders`);
    await q.query(`DROP FUNCTION indexer_clob_trader_sketch_from_traders()`);
    await q.query(`DROP FUNCTION indexer_trader_sketch_of(integer, text, date)`);
    await q.query(`DROP TABLE indexer_clob_trader_sketch`);
  }
}
