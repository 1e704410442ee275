import express from 'express';
import { Pool } from 'pg';

/**
 * The baseline of the loan route benchmark: a bare Express route that runs one indexed
 * one-row SELECT (a loan by primary key) on the same database and answers its row as JSON.
 * A loan route's p99 over this one's is the cost of our work: the gate, validation, the
 * route's queries and the view.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = express();
let next = 0;
app.get('/loan', async (_req, res) => {
  next = (next % 100_000) + 1;
  const { rows } = await pool.query(
    'SELECT loan_id::text, borrower, collateral_amount::text, health_wad::text FROM indexer_loans WHERE chain_id = 31337 AND loan_id = $1',
    [next],
  );
  res.json(rows[0] ?? null);
});
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'bare listening', port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
