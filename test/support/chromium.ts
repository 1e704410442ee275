import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

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
