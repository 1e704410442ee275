import express from 'express';

/**
 * The baseline: a bare Express route on the same machine that parses the same JSON body and
 * answers 201, with nothing behind it. The quote route's figure over this one is the cost of
 * our work (validation, hashing, Postgres, the queue).
 */
const app = express();
app.use(express.json({ limit: 256 * 1024 }));
app.post('/api/quote', (req, res) => {
  res.status(201).json({ ok: true, legs: Array.isArray(req.body?.intents) ? req.body.intents.length : 0 });
});
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ msg: 'bare listening', port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
