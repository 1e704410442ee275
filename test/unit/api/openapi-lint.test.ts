import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { lintConfig, lintFromString, loadConfig, makeDocumentFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { buildOpenApiDocument, type OpenApiDocument } from '../../../api/http/openapi-document';
import { API_ROUTES } from '../../../api/routes/route-table';
import { API_VERSION, ROUTE_TAGS } from '../../../api/routes/route-tags';

const CONFIG = path.resolve(__dirname, '../../../redocly.yaml');

/** One line per problem, so a failure reads like Redocly's own report. */
const lines = (problems: NormalizedProblem[]) =>
  problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer).join(', ')}: ${p.message}`);

async function lint(doc: OpenApiDocument): Promise<string[]> {
  const config = await loadConfig({ configPath: CONFIG });
  return lines(await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/api/openapi.json', config }));
}

type Responses = Record<string, unknown>;
const responsesOf = (doc: OpenApiDocument, p: string, method: 'get' | 'post') => (doc.paths[p]?.[method] as { responses: Responses }).responses;

/**
 * The document GET /api/openapi.json serves, through Redocly's recommended rules as redocly.yaml
 * configures them: no error and no warning. The two rules redocly.yaml replaces still catch what
 * they are there for.
 */
describe('the OpenAPI document under Redocly (redocly.yaml)', () => {
  // Loading the rules and walking ~60 operations: seconds on a busy machine.
  jest.setTimeout(120_000);

  it("redocly.yaml itself has no problem: every rule and assertion is one Redocly knows (1.x's `undefined: true` is refused by CLI 2.x)", async () => {
    const config = await loadConfig({ configPath: CONFIG });
    const document = makeDocumentFromString(await readFile(CONFIG, 'utf8'), CONFIG);
    expect(lines(await lintConfig({ config, document }))).toEqual([]);
  });

  it('has no problem, warnings included', async () => {
    expect(await lint(buildOpenApiDocument(API_ROUTES, ROUTE_TAGS, API_VERSION))).toEqual([]);
  });

  it('still flags an operation under /api without a 4xx, and a live operation without a 2xx', async () => {
    const doc = buildOpenApiDocument(API_ROUTES, ROUTE_TAGS, API_VERSION);
    const create = responsesOf(doc, '/api/quote', 'post');
    for (const status of Object.keys(create)) if (status.startsWith('4')) delete create[status];
    const poll = responsesOf(doc, '/api/quote/{id}', 'get');
    delete poll['200'];
    // (The dropped 200's body also leaves its component unused: no-unused-components says so too.)
    expect((await lint(doc)).filter((line) => line.includes(' rule/'))).toEqual([
      expect.stringMatching(/^warn rule\/api-operation-4xx-response at #\/paths\/~1api~1quote\/post\/responses: /),
      expect.stringMatching(/^warn rule\/live-operation-2xx-response at #\/paths\/~1api~1quote~1\{id\}\/get\/responses: /),
    ]);
  });
});
