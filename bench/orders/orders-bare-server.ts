import express from 'express';

/**
 * The baseline: bare Express routes on the same machine that parse the same JSON bodies and
 * answer 201 with nothing behind them. The orders routes' figures over these are the cost of our
 * work (validation, hashing, signing, Postgres, the queue).
 */
const app = express();
app.use(express.json({ limit: 256 * 1024 }));
app.post('/api/orders', (req, res) => {
  res.status(201).json({ ok: true, amount: typeof req.body?.amount === 'string' ? req.body.amount : null });
});
app.post('/api/exclusive-fill', (req, res) => {
  res.status(201).json({ ok: true, orders: Array.isArray(req.body?.order_ids) ? req.body.order_ids.length : 0 });
});
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'bare listening', port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
