import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (.ci/run installs the package). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Debian's chromium, headless, on a throwaway profile, with nothing of its own going to the
 * network (no sync, updates or background fetches): what the page under test loads is all it
 * loads. `close` ends the browser and removes the profile.
 */
export async function headlessChromium(
  name: string,
  opts: { viewport: { width: number; height: number }; httpCredentials?: { username: string; password: string } },
): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(path.join(os.tmpdir(), `${name}-chromium-`));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    ...opts,
  });
  return {
    browser,
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A page of `browser` that may load only from `base`, with what it tried elsewhere, its script errors and its CSP refusals. */
export interface WatchedPage {
  page: Page;
  /** URLs outside `base` the page asked for (each refused). */
  foreign: string[];
  /** Uncaught errors of the page's scripts. */
  errors: string[];
  /** Console errors reporting a Content Security Policy refusal. */
  blocked: string[];
}

export async function watchedPage(browser: BrowserContext, base: string): Promise<WatchedPage> {
  const foreign: string[] = [];
  await browser.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`)) return route.continue();
    foreign.push(url);
    return route.abort();
  });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const blocked: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/.test(m.text())) blocked.push(m.text());
  });
  return { page, foreign, errors, blocked };
}
