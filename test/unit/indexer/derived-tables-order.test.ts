import { DERIVED_TABLES, rollbackOrderProblems, type TableOrder } from '../../../indexer/store/derived-tables';

/**
 * The rollback of a reorg, a resync and a reset runs DERIVED_TABLES in list order, and so does a
 * batch's write: the constraints on that order are data on the entries (`order`), and the list
 * must keep them. test/integration/indexer/derived-tables-order.test.ts adds the schema's foreign keys.
 */
type Entry = { table: string; order?: TableOrder; write?: unknown; ownRowsOnly?: true };
const list: readonly Entry[] = DERIVED_TABLES;
const rules = ['rollsBackBefore', 'rollsBackAfter', 'writesAfter'] as const;

/** Every constraint the entries declare, as [table, rule, other table]. */
const declared = list.flatMap((t) => rules.flatMap((rule) => (t.order?.[rule] ?? []).map((other) => [t.table, rule, other] as const)));

/** The list with two entries swapped. */
function swapped(a: string, b: string): Entry[] {
  const i = list.findIndex((t) => t.table === a);
  const j = list.findIndex((t) => t.table === b);
  const out = [...list];
  [out[i], out[j]] = [out[j], out[i]];
  return out;
}

describe('the rollback order of the derived tables', () => {
  it('the shipped list keeps every ordering constraint its entries declare', () => {
    expect(declared.length).toBeGreaterThan(0);
    expect(rollbackOrderProblems(list)).toEqual([]);
  });

  it('every entry that states an order says why', () => {
    for (const t of list) if (t.order) expect(`${t.table}: ${t.order.why.trim()}`).toMatch(/: \S.{10,}/);
  });

  it.each(declared)('%s %s %s: a list that swaps the two is refused, naming both', (table, rule, other) => {
    const expected = `${table} must come ${rule === 'rollsBackBefore' ? 'before' : 'after'} ${other} (${rule})`;
    expect(rollbackOrderProblems(swapped(table, other))).toContain(expected);
  });

  it('refuses a table listed twice, a constraint naming an unknown table or itself, and a write order on a table without a write', () => {
    const quotes = list.find((t) => t.table === 'quotes')!;
    const events = list.find((t) => t.table === 'indexer_events')!;
    const problems = rollbackOrderProblems([
      ...list,
      events,
      {
        table: 'indexer_imaginary',
        rollback: quotes,
        order: { rollsBackBefore: ['indexer_nowhere'], rollsBackAfter: ['indexer_imaginary'], why: 'a test entry' },
      },
      { ...quotes, table: 'quotes_again', order: { writesAfter: ['indexer_events'], why: 'an effect has no write of its own' } },
    ] as Entry[]);
    expect(problems).toEqual([
      'indexer_events is listed twice',
      'indexer_imaginary: rollsBackBefore names indexer_nowhere, which is not in the list',
      'indexer_imaginary: rollsBackAfter names itself',
      'quotes_again: writesAfter names indexer_events, but only tables with a write are ordered by it',
    ]);
  });

  it('a table written before the cursor moves (ownRowsOnly) cannot be ordered after another write', () => {
    const own = list.filter((t) => t.ownRowsOnly).map((t) => t.table);
    expect(own).toEqual(['indexer_events', 'indexer_transfers']);
    const events = list.find((t) => t.table === 'indexer_events')!;
    const waiting = { ...events, order: { writesAfter: ['indexer_orders'], why: 'a test entry that waits for the book' } };
    expect(rollbackOrderProblems(list.map((t) => (t === events ? waiting : t)))).toContain(
      "indexer_events: ownRowsOnly, so its write cannot come after another's (writesAfter)",
    );
  });

  it('a foreign key between two listed tables orders the referencing table first; others are not its business', () => {
    const fk = (from: string, to: string) => ({ from, to, name: `${from}_${to}_fkey` });
    expect(
      rollbackOrderProblems(list, [
        fk('indexer_balances', 'indexer_pairs'),
        fk('indexer_pairs', 'networks'),
        fk('quote_legs', 'quotes'),
        fk('quotes', 'quotes'),
      ]),
    ).toEqual([]);
    expect(rollbackOrderProblems(list, [fk('indexer_clob_activity', 'indexer_pairs')])).toEqual([
      'indexer_clob_activity must come before indexer_pairs (foreign key indexer_clob_activity_indexer_pairs_fkey: it references indexer_pairs)',
    ]);
  });
});
