import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A fresh temporary folder named after the test run (`rfq-<name>-<run>-XXXXXX`). A redis-server
 * started there rewrites its own command line and environment, so the folder it runs in is what
 * names its run to the end-of-run check (test/support/leftovers.ts).
 */
export function runTempDir(name: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `rfq-${name}-${process.env.RFQ_TEST_RUN_ID ?? 'norun'}-`));
}
