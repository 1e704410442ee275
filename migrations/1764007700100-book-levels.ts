import type { MigrationInterface, QueryRunner } from 'typeorm';
import { dropStatementTriggers, statementTrigger, statementTriggers } from './support/statement-triggers';

/**
 * `indexer_clob_levels`: the open book per pair, series, side and price (open size and order
 * count), kept by statement triggers on `indexer_orders` (the same transaction as every write
 * and rollback of the orders), so a book reads at most `depth` rows per series and side
 * whatever the number of open orders behind each level.
 */
const COLS = 'chain_id, pair, option_id, is_buy, price, remaining, state';

const levels = (op: string) => `
  INSERT INTO indexer_clob_levels AS t (chain_id, pair, option_id, is_buy, price, size, orders)
  SELECT chain_id, pair, option_id, is_buy, price, sum(sign * remaining), sum(sign)
    FROM %SRC(${COLS})%${op} o WHERE state = 'open' GROUP BY chain_id, pair, option_id, is_buy, price
  ON CONFLICT (chain_id, pair, option_id, is_buy, price) DO UPDATE SET size = t.size + EXCLUDED.size, orders = t.orders + EXCLUDED.orders;
  DELETE FROM indexer_clob_levels l USING (SELECT DISTINCT chain_id, pair, option_id, is_buy, price FROM %SRC(${COLS})%${op} k WHERE state = 'open') k
   WHERE l.chain_id = k.chain_id AND l.pair = k.pair AND l.option_id = k.option_id AND l.is_buy = k.is_buy AND l.price = k.price AND l.orders = 0;`;

export class BookLevels1764007700100 implements MigrationInterface {
  name = 'BookLevels1764007700100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE indexer_clob_levels (
        chain_id  integer NOT NULL REFERENCES networks(chain_id) ON DELETE CASCADE,
        pair      text NOT NULL,
        option_id numeric(78,0) NOT NULL,
        is_buy    boolean NOT NULL,
        price     numeric(78,0) NOT NULL,
        size      numeric(78,0) NOT NULL,
        orders    bigint NOT NULL,
        PRIMARY KEY (chain_id, pair, option_id, is_buy, price)
      )`);
    await q.query(`
      INSERT INTO indexer_clob_levels (chain_id, pair, option_id, is_buy, price, size, orders)
      SELECT chain_id, pair, option_id, is_buy, price, sum(remaining), count(*) FROM indexer_orders WHERE state = 'open' GROUP BY 1, 2, 3, 4, 5`);
    await q.query(statementTrigger('indexer_clob_levels_from_orders', levels));
    await statementTriggers(q, 'indexer_orders', 'indexer_clob_levels_from_orders');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropStatementTriggers(q, 'indexer_orders');
    await q.query(`DROP FUNCTION indexer_clob_levels_from_orders()`);
    await q.query(`DROP TABLE indexer_clob_levels`);
  }
}
