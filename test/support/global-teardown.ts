import { dropDatabase, withAdmin } from './test-db';

/** Drops every database this run made (the template and any a crashed file left behind). */
export default async function globalTeardown(): Promise<void> {
  const run = process.env.RFQ_TEST_RUN_ID;
  if (!run) return;
  await withAdmin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`rfq_t_${run}_%`]);
    for (const r of rows) await dropDatabase(c, r.datname);
  });
}
