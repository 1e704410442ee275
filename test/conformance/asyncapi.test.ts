import { Parser } from '@asyncapi/parser';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import { z } from 'zod';
import { buildAsyncApiDocument, channelAddress, joinRuleDoc, type AsyncApiDocument } from '../../api/http/asyncapi-document';
import { API_VERSION } from '../../api/routes/route-tags';
import { DEVELOPMENT_SERVICE_SIGNER } from '../../shared/chain/service-signer';
import { winnerAwardView, type DutchBidRow, type DutchColumns } from '../../shared/dutch';
import { decideAward } from '../../shared/dutch/dutch-award-decision';
import { TOPIC_TABLE, type AnyTopicSpec } from '../../shared/events';
import { DutchAwardSigner, dutchFillDigest, legToIntent, parseDutchRequest } from '../../shared/protocol';
import type { QuoteLegRow, QuoteRow } from '../../shared/quotes';
import { dutchBody, FIXTURE_MOTHERSHIP } from '../support/dutch';
import { buildApp, request } from '../support/http';
import { createTestEnv, type TestEnv } from '../support/test-env';
import { newWallet } from '../support/wallets';

type Json = Record<string, unknown>;
const table = Object.entries(TOPIC_TABLE) as [string, AnyTopicSpec][];

describe('the AsyncAPI document', () => {
  let env: TestEnv;
  let app: Express;
  let doc: AsyncApiDocument;

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
    doc = buildAsyncApiDocument(API_VERSION);
  });
  afterAll(() => env.close());

  it('is valid AsyncAPI 3 for the maintained parser', async () => {
    const diagnostics = await new Parser().validate(structuredClone(doc) as never);
    // Severity 0 is an error; warnings (e.g. "a newer 3.x exists") do not make a document invalid.
    expect(diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`)).toEqual([]);
    const { document } = await new Parser().parse(structuredClone(doc) as never);
    expect(document?.version()).toBe('3.0.0');
    expect(
      document
        ?.channels()
        .all()
        .map((c) => c.address())
        .sort(),
    ).toEqual(
      Object.values(doc.channels)
        .map((c) => c.address)
        .sort(),
    );
  });

  it('is served at GET /api/asyncapi.json, as built at start, and cacheable', async () => {
    const res = await request(app).get('/api/asyncapi.json').expect(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(res.headers['cache-control']).toMatch(/^public/);
  });

  it('has one channel per topic kind of the table, named with its parameter', () => {
    expect(Object.keys(doc.channels).sort()).toEqual(['phoenix', ...table.map(([kind]) => kind)].sort());
    for (const [kind, spec] of table) {
      const ch = doc.channels[kind];
      expect([kind, ch.address]).toEqual([kind, channelAddress(spec.name.template)]);
      const names = [...ch.address.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
      expect([kind, Object.keys(ch.parameters as Json)]).toEqual([kind, names]);
    }
    expect(doc.channels.quotes_requests.address).toBe('quotes:{chain_id}:requests');
    expect(doc.channels.rfq_maker.address).toBe('rfq_maker:{address}');
    expect(doc.channels.rfq_stream.address).toBe('rfq_stream:{stream_token}');
  });

  it('carries every event of the table with the JSON Schema of its payload schema, plus seq', () => {
    for (const [kind, spec] of table) {
      const messages = doc.channels[kind].messages as Record<string, Json>;
      const events = Object.keys(messages).filter((m) => !m.startsWith('phx_'));
      expect([kind, events.sort()]).toEqual([kind, Object.keys(spec.events).sort()]);
      for (const [event, schema] of Object.entries(spec.events)) {
        const payload = messages[event].payload as { properties: Json; required: string[] };
        const { $schema: _s, ...expected } = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Json & {
          properties: Json;
          required?: string[];
        };
        expect(payload.properties).toEqual({ seq: expect.objectContaining({ type: 'integer', minimum: 1 }), ...expected.properties });
        expect(payload.required).toEqual(['seq', ...(expected.required ?? [])]);
      }
      const receive = doc.operations[`receive_${kind}`].messages as { $ref: string }[];
      expect(receive.map((m) => m.$ref.split('/').pop())).toEqual([...Object.keys(spec.events), 'phx_close', 'phx_error']);
    }
  });

  it('says who may join with what, and marks planned kinds coming soon', () => {
    const joinProps = (kind: string) =>
      Object.keys(((doc.channels[kind].messages as Record<string, Json>).phx_join.payload as { properties: Json }).properties).sort();
    expect(joinProps('quotes_requests')).toEqual(['api_key', 'last_seq', 'token']);
    expect(joinProps('rfq_maker')).toEqual(['api_key', 'last_seq', 'token']);
    expect(joinProps('rfq_stream')).toEqual(['last_seq']);
    for (const [kind, spec] of table) {
      const ch = doc.channels[kind];
      expect([kind, ch.description]).toEqual([kind, expect.stringContaining(`Who may join: ${joinRuleDoc(spec).who}`)]);
      expect([kind, ch['x-status'], (ch.tags as { name: string }[])[0].name]).toEqual([kind, spec.status, spec.status === 'planned' ? 'coming-soon' : 'live']);
      expect([kind, doc.operations[`join_${kind}`].action]).toEqual([kind, 'send']);
    }
    expect(table.filter(([, s]) => s.status === 'planned').length).toBeGreaterThan(0);
  });

  it('describes the Phoenix envelope, both vsn, and the seq / replay / recovered semantics', () => {
    expect(doc.info.description).toEqual(expect.stringContaining('vsn=2.0.0'));
    expect(doc.info.description).toEqual(expect.stringContaining('vsn=1.0.0'));
    expect(Object.keys(doc.components.schemas)).toEqual(['PhoenixFrameV2', 'PhoenixFrameV1']);
    for (const word of ['last_seq', '"recovered": true', '"recovered": false', 'replays from its first event'])
      expect(doc.info.description).toEqual(expect.stringContaining(word));
    const reply = JSON.stringify(doc.components.messages.phx_reply);
    expect(reply).toContain('recovered');
  });

  it("describes the winner's dutch_award field by field, exactly as the auctioneer sends it: every field present, nothing else", async () => {
    type Schema = { properties: Record<string, Schema & { description?: string }>; required: string[]; additionalProperties: unknown; description?: string };
    const schema = (doc.channels.rfq_maker.messages as Record<string, Json>).dutch_award.payload as Schema;
    const exact = (what: string, s: Schema) => {
      expect([what, s.additionalProperties]).toEqual([what, false]);
      expect([what, [...s.required].sort()]).toEqual([what, Object.keys(s.properties).sort()]);
      for (const [field, p] of Object.entries(s.properties))
        expect([what, field, typeof p.description, (p.description ?? '').length > 10]).toEqual([what, field, 'string', true]);
    };
    exact('dutch_award', schema);
    exact('dutch_award.award', schema.properties.award);

    // The notice the auctioneer publishes for a real award: a signed request, its best bid, the signed award.
    const taker = newWallet();
    const body = await dutchBody(taker);
    const request = parseDutchRequest(body.dutch_request, { now: 0 });
    const now = Date.UTC(2030, 0, 1);
    const q: QuoteRow = {
      id: '0b6f3c1e-2d4a-4f5e-8a9b-0c1d2e3f4a5b',
      chain_id: 31337,
      state: 'open',
      offer_format: 'dutch_only',
      polarity: 'b_is_buy',
      strategy: 'call_spread',
      taker_address: taker.address,
      referrer: '0x0000000000000000000000000000000000000000',
      taker_salt: `0x${'ab'.repeat(32)}`,
      taker_address_hash: `0x${'cd'.repeat(32)}`,
      directions: body.directions as number[],
      pair_contract: request.intents[0].pair6909Contract,
      expiry_timestamp: request.intents[0].expiryTimestamp,
      stream_token_hash: 'f'.repeat(64),
      expires_at: new Date(now + 300_000),
      created_at: new Date(now - 2000),
      closed_at: null,
      fill_tx_hash: null,
    };
    const legs: QuoteLegRow[] = request.intents.map(legToIntent).map((i, idx) => ({
      idx,
      option_type: i.option_type,
      structure: i.structure,
      direction: (body.directions as (0 | 1)[])[idx],
      strike_wad: i.strike_wad.toString(),
      amount: i.amount.toString(),
      start_exercise_timestamp: i.start_exercise_timestamp,
      expiry_timestamp: i.expiry_timestamp,
    }));
    const d: DutchColumns = {
      id: q.id,
      dutch_phase: 'competing',
      dutch_request: body.dutch_request as DutchColumns['dutch_request'],
      dutch_request_digest: dutchFillDigest({ chainId: 31337, mothership: FIXTURE_MOTHERSHIP }, request),
      taker_signature: body.taker_signature as `0x${string}`,
      compete_ends_at: new Date(now),
      exclusive_ms: 5000,
      exclusive_ends_at: null,
      awarded_at: null,
      opened_at: null,
      award: null,
      winner: null,
    };
    const maker = newWallet().address;
    const best: DutchBidRow = {
      id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
      quote_id: q.id,
      maker,
      filler: maker,
      buy_override_bps: 40,
      sell_override_bps: 10,
      version: 1,
      bid_at: new Date(now - 1000),
    };
    const { after } = await decideAward({ q, d, legs }, best, {
      now,
      mothership: FIXTURE_MOTHERSHIP,
      signer: new DutchAwardSigner(DEVELOPMENT_SERVICE_SIGNER),
    });
    // As it reaches a client: JSON, with the socket tier's seq.
    const sent = JSON.parse(JSON.stringify({ seq: 1, ...winnerAwardView(after.q, legs, after.d) })) as Json;
    expect(Object.keys(sent).sort()).toEqual(Object.keys(schema.properties).sort());
    expect(Object.keys(sent.award as Json).sort()).toEqual(Object.keys(schema.properties.award.properties).sort());

    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect([validate(sent), validate.errors]).toEqual([true, null]);
    // Exact both ways: a field more (the taker's address) or a field less is off the document.
    expect(validate({ ...sent, taker_address: taker.address })).toBe(false);
    const { award: _award, ...withoutAward } = sent;
    expect(validate(withoutAward)).toBe(false);
    expect(validate({ ...sent, award: null })).toBe(false);
  });

  it("refuses to build when a topic's join rule is not documented", () => {
    const undocumented: AnyTopicSpec = { ...TOPIC_TABLE.quotes_requests, authorize: async () => ({ ok: false as const, reason: 'no' }) };
    expect(() => joinRuleDoc(undocumented)).toThrow('quotes:<chain_id>:requests: its join rule has no entry in JOIN_RULES');
  });
});
