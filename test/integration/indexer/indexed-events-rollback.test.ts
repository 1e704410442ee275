import { randomBytes, randomUUID } from 'node:crypto';
import { toHex, type Hex } from 'viem';
import { decodeLog, type DecodedLog } from '../../../indexer/chain-events/decode-log';
import type { IndexedEvent } from '../../../indexer/chain-events/indexed-event';
import { INDEXED_EVENTS } from '../../../indexer/chain-events/indexed-events';
import { handleLogs } from '../../../indexer/chain-events/handle-logs';
import { rollbackDerived, writeDerived } from '../../../indexer/store/derived-tables';
import { dutchFilledEvent, exclusiveFillUsedEvent, packageExecutedEvent } from '../../../shared/chain/abis';
import { NetworksService } from '../../../shared/networks';
import { createTestEnv, type TestEnv } from '../../support/test-env';
import { encodeLog, fixedArgs } from '../../unit/indexer/abi-logs';

/**
 * For every entry of the indexed-event table, on a real database: a batch holding one log of
 * the event is written as the indexer writes it, then rolled back as a reorg rolls it back, and
 * the whole database (every table of the schema, row for row) must be what it was before. The
 * tables the write changed must be the ones the entry declares. An event whose rows land in a
 * table the rollback list does not clear, or that declares a table it does not change, fails here.
 * Arguments come from the ABI (abi-logs.ts), so a new entry is covered without a line here.
 */
const CHAIN = 31337;
const EMITTERS = {
  factory: '0x1000000000000000000000000000000000000001',
  mothership: '0x2000000000000000000000000000000000000002',
  pair: '0x3000000000000000000000000000000000000003',
  lending_market: '0x4000000000000000000000000000000000000004',
  price_oracle: '0x5000000000000000000000000000000000000005',
  bondVault: '0x6000000000000000000000000000000000000006',
} as const;
const entries = Object.entries(INDEXED_EVENTS).map(([kind, e]) => [kind, e as IndexedEvent<string, object>] as const);
let env: TestEnv;

type Snapshot = Map<string, string[]>;

/** Every row of every table of the schema, as sorted JSON text per table. */
async function snapshot(): Promise<Snapshot> {
  const tables: { t: string }[] = await env.db.query(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`);
  const out: Snapshot = new Map();
  for (const { t } of tables) {
    const rows: { r: string }[] = await env.db.query(`SELECT row_to_json(x)::text AS r FROM "${t}" x`);
    out.set(t, rows.map((x) => x.r).sort());
  }
  return out;
}

const changedTables = (before: Snapshot, after: Snapshot) =>
  [...after.keys()].filter((t) => JSON.stringify(before.get(t)) !== JSON.stringify(after.get(t))).sort();

/** Writes one batch, in block `block`, holding one log of each of `kinds` (in that order), as the store does: one transaction. */
async function writeBatch(kinds: string[], block: number): Promise<void> {
  const blockHash = `0x${block.toString(16).padStart(64, '0')}` as Hex;
  const logs: DecodedLog[] = kinds.map((kind, i) => {
    const e = INDEXED_EVENTS[kind as keyof typeof INDEXED_EVENTS] as IndexedEvent<string, object>;
    const raw = encodeLog(e.abi, fixedArgs(e.abi), {
      address: EMITTERS[e.emitter],
      blockNumber: block,
      blockHash,
      logIndex: i,
      txHash: toHex(randomBytes(32)),
    });
    return decodeLog(raw, () => e.emitter)!;
  });
  const changes = handleLogs(logs, new Map([[block, 1_700_000_000 + block]]));
  await env.db.transaction((m) => writeDerived(m, CHAIN, changes));
}

async function rollbackTo(at: number): Promise<void> {
  await env.db.transaction((m) => rollbackDerived(m, CHAIN, at));
}

let initial: Snapshot;

beforeAll(async () => {
  env = await createTestEnv();
  await new NetworksService(env.db).upsertNetwork({
    chain_id: CHAIN,
    name: 'rollback test',
    rpc_urls: ['http://127.0.0.1:9'],
    contracts: {},
    enabled: false,
    confirmations: 0,
    tokens: [],
  });
  // The open quote a settlement in these batches fills (matched by its taker hash), so the quote's fill is rolled back too.
  const takerHash = (fixedArgs(packageExecutedEvent).takerAddressHash as string).toLowerCase();
  await env.db.query(
    `INSERT INTO quotes (id, chain_id, offer_format, polarity, strategy, taker_address, referrer, taker_salt, taker_address_hash, directions,
                         pair_contract, expiry_timestamp, stream_token_hash, expires_at)
     VALUES ($1, $2, 'package_only', 'b_is_buy', 'call', $3, $3, $4, $5, '{1,0}', $6, $7, $8, now() + interval '1 hour')`,
    [randomUUID(), CHAIN, EMITTERS.factory, toHex(randomBytes(32)), takerHash, EMITTERS.pair, Math.floor(Date.now() / 1000) + 86_400, toHex(randomBytes(32))],
  );
  // The open Dutch quote a Dutch fill in these batches fills (matched by its request digest), so its fill is rolled back too.
  const requestDigest = (fixedArgs(dutchFilledEvent).requestDigest as string).toLowerCase();
  await env.db.query(
    `INSERT INTO quotes (id, chain_id, offer_format, polarity, strategy, taker_address, referrer, taker_salt, taker_address_hash, directions,
                         pair_contract, expiry_timestamp, stream_token_hash, expires_at,
                         dutch_phase, dutch_request, dutch_request_digest, taker_signature, taker_nonce, compete_ends_at)
     VALUES ($1, $2, 'dutch_only', 'b_is_buy', 'call', $3, $3, $4, $5, '{1}', $6, $7, $8, now() + interval '1 hour',
             'open', '{}', $5, '0x', 1, now())`,
    [
      randomUUID(),
      CHAIN,
      EMITTERS.factory,
      toHex(randomBytes(32)),
      requestDigest,
      EMITTERS.pair,
      Math.floor(Date.now() / 1000) + 86_400,
      toHex(randomBytes(32)),
    ],
  );
  // The active exclusive fill a use in these batches marks used (matched by its id hash), holding one open order it fills.
  const fillId = randomUUID();
  const orderId = randomUUID();
  await env.db.query(
    `INSERT INTO exclusive_fills (id, id_hash, chain_id, pair, maker, reward_destination, order_ids, intent_data_hash, signature, expire_time)
     VALUES ($1, $2, $3, $4, $4, $4, $5, $6, '0x', now() + interval '1 hour')`,
    [fillId, (fixedArgs(exclusiveFillUsedEvent).exclusiveFillId as string).toLowerCase(), CHAIN, EMITTERS.pair, [orderId], toHex(randomBytes(32))],
  );
  await env.db.query(
    `INSERT INTO orders (id, chain_id, owner_address, pair, premium_token, nonce_prefix, nonce, amount, intent_hash, destination, data, expires_at, exclusive_fill_id)
     VALUES ($1, $2, $3, $3, $3, 0, 1, 1, $4, '{}', '{}', now() + interval '1 hour', $5)`,
    [orderId, CHAIN, EMITTERS.pair, toHex(randomBytes(32)), fillId],
  );
  initial = await snapshot();
}, 60_000);

afterAll(async () => {
  await env?.close();
});

describe.each(entries)('a reorg removing a %s log', (kind, entry) => {
  it('leaves every table as it was, having changed only tables the entry declares', async () => {
    await writeBatch([kind], 11);
    const written = await snapshot();
    expect(changedTables(initial, written).filter((t) => !entry.tables.includes(t as never))).toEqual([]);
    await rollbackTo(10);
    expect(await snapshot()).toEqual(initial);
  });

  it('on top of every other event, undoes exactly the tables the entry declares', async () => {
    await writeBatch(
      entries.map(([k]) => k).filter((k) => k !== kind),
      10,
    );
    const base = await snapshot();
    await writeBatch([kind], 11);
    expect(changedTables(base, await snapshot())).toEqual([...entry.tables].sort());
    await rollbackTo(10);
    expect(await snapshot()).toEqual(base);
    await rollbackTo(-1);
    expect(await snapshot()).toEqual(initial);
  });
});
