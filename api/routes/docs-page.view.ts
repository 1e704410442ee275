import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../shared/platform/files';
import type { AsyncApiDocument } from '../http/asyncapi-document';
import type { Json } from '../http/schema-docs';

/**
 * The docs page, rendered once at start: the guides (HTML fragments under docs/guides, so they
 * are edited as documents, not code), a server-rendered table of the socket from the AsyncAPI
 * document, and the REST reference drawn in the browser by Redoc from /api/openapi.json.
 * Everything it loads comes from this server (no CDN).
 */

export const GUIDES_DIR = path.join(packageRoot(__dirname), 'docs', 'guides');
export const GUIDE_FILES = ['first-quote.html', 'first-offer.html'] as const;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const code = (s: string) => `<code>${escapeHtml(s)}</code>`;

/** A payload's fields as `name: type` (required ones marked), from its JSON Schema. */
function payloadFields(schema: Json): string {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = Object.entries(props).map(([name, p]) => `${code(name)}${required.has(name) ? '' : '?'}: ${escapeHtml(String(p.type ?? 'any'))}`);
  if (schema.additionalProperties !== false) fields.push('and further fields');
  return fields.join(', ');
}

/** One row per topic kind: its address, who may join with what, and its events with their fields. */
export function socketTable(doc: AsyncApiDocument): string {
  const rows = Object.entries(doc.channels)
    .filter(([, ch]) => Array.isArray(ch['x-join-params']))
    .map(([, ch]) => {
      const messages = ch.messages as Record<string, Json>;
      const events = Object.entries(messages)
        .filter(([, m]) => !('$ref' in m) && m.name !== 'phx_join')
        .map(([name, m]) => `<li>${code(name)}: ${payloadFields(m.payload as Json)}</li>`)
        .join('');
      const status = ch['x-status'] === 'planned' ? ' <em>(coming soon)</em>' : '';
      const params = (ch['x-join-params'] as string[]).map(code).join(', ');
      const who =
        String(ch.description)
          .split('\n\n')
          .find((p) => p.startsWith('Who may join: ')) ?? '';
      return `<tr><td>${code(String(ch.address))}${status}</td><td>${params}</td><td>${escapeHtml(who.replace('Who may join: ', ''))}</td><td>${events ? `<ul>${events}</ul>` : 'none yet'}</td></tr>`;
    });
  return `<table class="topics"><thead><tr><th>Topic</th><th>Join params</th><th>Who may join</th><th>Events (payload fields)</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function renderDocsPage(doc: AsyncApiDocument, redocScript: string): string {
  const guides = GUIDE_FILES.map((f) => readFileSync(path.join(GUIDES_DIR, f), 'utf8')).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Options RFQ API documentation</title>
<style>
  body { margin: 0; font-family: system-ui, sans-serif; color: #222; }
  .intro { max-width: 1100px; margin: 0 auto; padding: 16px 24px; }
  table.topics { border-collapse: collapse; width: 100%; font-size: 14px; }
  table.topics td, table.topics th { border: 1px solid #ccc; padding: 6px 8px; text-align: left; vertical-align: top; }
  table.topics ul { margin: 0; padding-left: 18px; }
  code { background: #f3f3f3; padding: 1px 3px; border-radius: 3px; }
</style>
</head>
<body>
<section class="intro">
  <h1>Options RFQ API</h1>
  <p>Machine-readable contracts: <a href="/api/openapi.json">OpenAPI 3.1</a> (REST) and <a href="/api/asyncapi.json">AsyncAPI 3</a> (socket).</p>
  <h2 id="guides">Guides</h2>
  ${guides}
  <h2 id="socket">Socket topics</h2>
  <p>Phoenix channels at ${code('/socket')} (vsn ${code('2.0.0')} array frames or ${code('1.0.0')} object frames). Every event carries ${code('seq')}; rejoin with ${code('last_seq')} to replay what you missed, and read ${code('recovered')} in the join reply.</p>
  ${socketTable(doc)}
  <h2 id="rest">REST reference</h2>
</section>
<redoc spec-url="/api/openapi.json" hide-download-button></redoc>
<script src="/docs/assets/${escapeHtml(redocScript)}"></script>
</body>
</html>
`;
}
