import { writeFile } from 'node:fs/promises';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { createApp } from '../../api/app';
import { JOBS, QUEUE_NAMES } from '../../workers/job-catalog';
import { headlessChromium, watchedPage } from '../support/chromium';
import { createTestEnv, type TestEnv } from '../support/test-env';

const SCREENSHOT = path.resolve(__dirname, '../../docs/img/ops-queues.png');
const TOKEN = 'ops-dashboard-token-for-the-browser-0123456789';

/** The operator's queue dashboard in Debian's chromium, headless: the login prompt answered, every queue on the page. */
describe('the queue dashboard in a real browser', () => {
  let env: TestEnv;
  let server: http.Server;
  let base: string;
  let chrome: Awaited<ReturnType<typeof headlessChromium>> | undefined;
  let browser: BrowserContext;

  beforeAll(async () => {
    env = await createTestEnv({ OPS_DASHBOARD_TOKEN: TOKEN });
    // Something to see: a sweep waiting in the quotes queue.
    await env.queue.enqueue(JOBS['quotes.sweep'], {}, { delay: 3_600_000 });
    const { app } = createApp({ ...env, queueNames: QUEUE_NAMES });
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    chrome = await headlessChromium('ops-queues', {
      viewport: { width: 1280, height: 800 },
      // Sent only once the server asks (401 with its Basic challenge), as a person's browser does after the prompt.
      httpCredentials: { username: 'operator', password: TOKEN },
    });
    browser = chrome.browser;
  });
  afterAll(async () => {
    // The browser first: server.close() waits for its kept-alive connections.
    await chrome?.close();
    await new Promise((resolve) => server?.close(resolve));
    await env?.close();
  });

  it('logs in through the Basic prompt and shows every queue of the job catalog, fetching nothing from elsewhere', async () => {
    const { page, foreign, errors, blocked } = await watchedPage(browser, base);
    const answer = await page.goto(`${base}/ops/queues`);
    expect(answer?.status()).toBe(200);
    for (const name of QUEUE_NAMES) await page.getByText(name, { exact: true }).first().waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    expect(text).toContain('options-rfq queues');
    for (const name of QUEUE_NAMES) expect(text).toContain(name);
    expect(errors).toEqual([]);
    // The page links Google's web font; the policy refuses it (and the route guard would have too), nothing else.
    expect(blocked.filter((b) => !b.includes('https://fonts.googleapis.com/'))).toEqual([]);
    expect(foreign.filter((u) => !u.startsWith('https://fonts.googleapis.com/'))).toEqual([]);

    const png = await page.screenshot({ type: 'png' });
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // The docs' picture is refreshed on demand, so a test run leaves the tree clean.
    if (process.env.DOCS_SCREENSHOT === '1') await writeFile(SCREENSHOT, png);
  });
});
