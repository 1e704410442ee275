import { writeFile } from 'node:fs/promises';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Express } from 'express';
import type { BrowserContext } from 'playwright-core';
import { DOCS_ASSETS } from '../../api/routes/docs-page.http';
import { DOCS_PAGE_CSP } from '../../api/routes/docs-page.routes';
import { buildApp, request } from '../support/http';
import { headlessChromium, watchedPage } from '../support/chromium';
import { createTestEnv, type TestEnv } from '../support/test-env';

const SCREENSHOT = path.resolve(__dirname, '../../docs/img/docs-page.png');

/** GET /docs: the human docs page, served by the app and rendered by Debian's chromium, headless. */
describe('the docs page', () => {
  let env: TestEnv;
  let app: Express;

  beforeAll(async () => {
    env = await createTestEnv();
    app = buildApp(env).app;
  });
  afterAll(() => env.close());

  it('is HTML with the guides and the socket topics, cacheable', async () => {
    const res = await request(app).get('/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toMatch(/^public/);
    expect(res.headers['content-security-policy']).toBe(DOCS_PAGE_CSP);
    for (const text of [
      'First quote in five minutes',
      'First offer',
      'quotes:{chain_id}:requests',
      'rfq_stream:{stream_token}',
      '/docs/assets/redoc.standalone.js',
    ]) {
      expect(res.text).toContain(text);
    }
    // Nothing is loaded from another origin.
    expect(res.text).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('serves each asset it loads from node_modules as a script', async () => {
    for (const name of Object.keys(DOCS_ASSETS)) {
      const res = await request(app).get(`/docs/assets/${name}`).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/javascript/);
      expect(res.text.length).toBeGreaterThan(100_000);
    }
  });

  it('answers 404 asset_not_found for an asset it does not serve', async () => {
    const res = await request(app).get('/docs/assets/nope.js').expect(404);
    expect(res.body).toMatchObject({ error: 'no docs asset nope.js', code: 'asset_not_found' });
  });

  it('answers 400 invalid_path for a malformed asset name, like any route with a path parameter', async () => {
    const res = await request(app).get('/docs/assets/%E0%A4%A').expect(400);
    expect(res.body).toMatchObject({ error: 'the path has malformed percent-encoding', code: 'invalid_path' });
  });

  describe('in a real browser', () => {
    let server: http.Server;
    let base: string;
    let chrome: Awaited<ReturnType<typeof headlessChromium>> | undefined;
    let browser: BrowserContext;

    beforeAll(async () => {
      server = app.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      chrome = await headlessChromium('docs-page', { viewport: { width: 1100, height: 760 } });
      browser = chrome.browser;
    });
    afterAll(async () => {
      // The browser first: server.close() waits for its kept-alive connections.
      await chrome?.close();
      await new Promise((resolve) => server?.close(resolve));
    });

    it('renders the quote route and the maker feed topic, with nothing fetched from elsewhere', async () => {
      const { page, foreign, errors, blocked } = await watchedPage(browser, base);
      await page.goto(`${base}/docs`);
      // Redoc draws the REST reference after fetching /api/openapi.json: wait until it has. A
      // locator, not a string predicate: Playwright evaluates those with eval, which the page's
      // own CSP forbids, so a predicate that had to poll (a slow render) failed.
      await page.locator('redoc', { hasText: 'Create an options RFQ quote' }).waitFor({ timeout: 20_000 });

      const rest = await page.locator('redoc').innerText();
      expect(rest).toMatch(/post\s*\/api\/quote\b/i);
      const text = await page.locator('body').innerText();
      expect(text).toContain('quotes:{chain_id}:requests');
      expect(text).toContain('First quote in five minutes');
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      // The policy refused only the renderer's remote logo: the page itself needs nothing it forbids.
      expect(blocked.filter((b) => !b.includes('https://cdn.redoc.ly/'))).toEqual([]);

      // The picture shows the socket topics with the REST reference below them.
      await page.locator('#socket').scrollIntoViewIfNeeded();
      const png = await page.screenshot({ type: 'png' });
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      // The README's picture is refreshed on demand, so a test run leaves the tree clean.
      if (process.env.DOCS_SCREENSHOT === '1') await writeFile(SCREENSHOT, png);
    });
  });
});
