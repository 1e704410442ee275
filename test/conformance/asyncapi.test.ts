import { Parser } from '@asyncapi/parser';
import type { Express } from 'express';
import { z } from 'zod';
import { buildAsyncApiDocument, channelAddress, joinRuleDoc, type AsyncApiDocument } from '../../api/http/asyncapi-document';
import { API_VERSION } from '../../api/routes/route-tags';
import { TOPIC_TABLE, type AnyTopicSpec } from '../../shared/events';
import { buildApp, request } from '../support/http';
import { createTestEnv, type TestEnv } from '../support/test-env';

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

  it("refuses to build when a topic's join rule is not documented", () => {
    const undocumented: AnyTopicSpec = { ...TOPIC_TABLE.quotes_requests, authorize: async () => ({ ok: false as const, reason: 'no' }) };
    expect(() => joinRuleDoc(undocumented)).toThrow('quotes:<chain_id>:requests: its join rule has no entry in JOIN_RULES');
  });
});
