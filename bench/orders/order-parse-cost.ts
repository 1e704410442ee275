import { parseOrderRequest, parseOrderRequestBySchema } from '../../shared/orders';
import { orderBody } from './orders-fixture';

/**
 * bench:validation:orders. What parsing an order create's body costs, as `OrderService.create`
 * calls it (clock read per call, the default ORDER_MAX_HORIZON_SECONDS), on bench:orders' body,
 * a fresh object per call as Express hands it over: the create path (the fast check of
 * shared/orders/order-request-check.ts, the schema for what it does not accept) beside the zod
 * schema alone, and the same for a body refused at one field (which the create path pays the
 * check for, then the schema). CPU time, not wall time: on a shared machine CPU time moves far
 * less than latency. Each round measures every side in turn; `JSON.parse` of the text is
 * measured in the same round and subtracted; the median of the rounds is printed.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 10_000);
const HORIZON = 31_536_000;
const OWNER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

function perCall(fn: () => unknown): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < ITERATIONS; i++) fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / ITERATIONS;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function main(): void {
  const valid = orderBody(OWNER);
  const refusedBody = JSON.parse(valid) as { data: Record<string, unknown> };
  refusedBody.data.buyOrSell = 2;
  const refused = JSON.stringify(refusedBody);
  const now = () => Math.floor(Date.now() / 1000);
  const refusing = (parse: typeof parseOrderRequest) => () => {
    try {
      parse(JSON.parse(refused), now(), HORIZON);
    } catch {
      // the 400's error, built as the route would build it
    }
  };
  const sides = {
    'accepted body, create path (fast check)': () => parseOrderRequest(JSON.parse(valid), now(), HORIZON),
    'accepted body, zod schema alone': () => parseOrderRequestBySchema(JSON.parse(valid), now(), HORIZON),
    'refused body, create path (check, then zod)': refusing(parseOrderRequest),
    'refused body, zod schema alone': refusing(parseOrderRequestBySchema),
  };
  const jsonValid = () => JSON.parse(valid) as unknown;
  const jsonRefused = () => JSON.parse(refused) as unknown;
  // Warm-up: JIT, viem's checksum cache, the schema of the current second.
  for (let i = 0; i < 2; i++) for (const fn of Object.values(sides)) perCall(fn);
  const rounds = new Map<string, number[]>(Object.keys(sides).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const json = { valid: perCall(jsonValid), refused: perCall(jsonRefused) };
    for (const [name, fn] of Object.entries(sides)) rounds.get(name)?.push(perCall(fn) - (name.startsWith('refused') ? json.refused : json.valid));
  }
  process.stdout.write(`\norder body parse, CPU per call (JSON.parse excluded), median of ${ROUNDS} rounds of ${ITERATIONS}\n`);
  for (const [name, xs] of rounds) {
    process.stdout.write(`${name.padEnd(46)} ${median(xs).toFixed(1).padStart(7)} us   (rounds ${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})\n`);
  }
}

main();
