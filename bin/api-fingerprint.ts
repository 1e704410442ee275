import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiFingerprint, nextVersion, parseVersion, versionBefore } from '../api/routes/api-version';

/**
 * `npm run api:fingerprint [-- <version>]`: after a change of the route specs or the topic
 * table, raises API_VERSION (to the next minor, or to `<version>`) and records it in
 * api/routes/api-version.json with the fingerprint of the documents it now names
 * (docs/API.md, "The API version"). Documents unchanged and no version given: nothing to do.
 */
const FILE = path.resolve(__dirname, '../api/routes/api-version.json');

function main(): number {
  const recorded = JSON.parse(readFileSync(FILE, 'utf8')) as { version: string; fingerprint: string };
  const asked = process.argv[2];
  const fingerprint = apiFingerprint();
  if (!asked && fingerprint === recorded.fingerprint) {
    console.log(`API_VERSION ${recorded.version}: the documents have not changed since it was recorded`);
    return 0;
  }
  if (asked && (!parseVersion(asked) || versionBefore(asked, recorded.version))) {
    console.error(`api:fingerprint: ${asked} is not a major.minor.patch version at or after ${recorded.version}`);
    return 2;
  }
  const version = asked ?? nextVersion(recorded.version);
  writeFileSync(FILE, `${JSON.stringify({ version, fingerprint }, null, 2)}\n`);
  console.log(`API_VERSION ${recorded.version} -> ${version}, fingerprint ${fingerprint} (api/routes/api-version.json)`);
  return 0;
}

process.exitCode = main();
