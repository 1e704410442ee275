import express from 'express';
import { Pool } from 'pg';

/**
 * The baseline: a bare Express route that answers one row read by primary key (an indexed
 * one-row SELECT of an order), with no gate, no validation and no shaping. An Explore route's
 * p99 over this one's is the cost of the gate, the queries and the view beyond the minimum.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 20) });
const pair = process.env.BENCH_PAIR ?? '';
const app = express();
let n = 0;
app.get('/bare', async (_req, res) => {
  n = (n % 100_000) + 1;
  const { rows } = await pool.query(`SELECT order_id, owner, price, remaining FROM indexer_orders WHERE chain_id = 31337 AND pair = $1 AND order_id = $2`, [
    pair,
    n,
  ]);
  res.json(rows[0] ?? null);
});
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'bare listening', port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
