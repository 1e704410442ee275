import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { LocalAccount } from 'viem/accounts';
import type { RfqClient } from '../client/src';
import { packageRoot, scriptStartArgs } from '../shared/platform/files';

const run = promisify(execFile);
/** The repository: the operator CLI's working directory, whether this file runs from its source or compiled in a build folder. */
const ROOT = packageRoot(__dirname);

/** A signed-in maker: its session bearer and its organization. */
export interface SignedInMaker {
  token: string;
  organization: string;
  /** True when this call had the operator CLI create the organization; false when it was there already. */
  created: boolean;
}

/** DATABASE_URL as a person may see it: the password (if any) hidden. */
function shownDatabase(url: string | undefined): string {
  if (url === undefined) return 'the default local database (DATABASE_URL is unset)';
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return `DATABASE_URL=${u.toString()}`;
  } catch {
    return 'DATABASE_URL (not a URL)';
  }
}

/**
 * The one line a demo prints when its operator step cannot reach the stack it talks to: the
 * organization went into the database DATABASE_URL names, and the API at `baseUrl` reads another.
 */
export function databaseMismatch(baseUrl: string, address: string, env: NodeJS.ProcessEnv): string {
  return (
    `the operator CLI gave ${address} a maker organization in ${shownDatabase(env.DATABASE_URL)}, but ${baseUrl} does not see it: ` +
    'that stack reads another database. Point DATABASE_URL at the database of the stack BASE_URL names ' +
    '(for `npm run stack:scaled`, source the file its ready line prints: `. <file>`) and run again'
  );
}

/** `npm run ops -- org:create` as an operator runs it, against the database DATABASE_URL names; its stderr on failure. */
async function orgCreate(
  address: string,
  name: string,
  env: NodeJS.ProcessEnv,
  opsCommand: readonly string[],
): Promise<{ ok: true } | { ok: false; stderr: string }> {
  try {
    await run(process.execPath, [...opsCommand, 'org:create', '--kind', 'maker', '--name', name, '--owner', address], { cwd: ROOT, env });
    return { ok: true };
  } catch (err) {
    return { ok: false, stderr: String((err as { stderr?: unknown }).stderr ?? (err as Error).message).trim() };
  }
}

/**
 * Signs `account` in and makes sure it speaks for a maker organization, so a demo or a bot runs
 * any number of times on one database: an organization the API already sees is reused; otherwise
 * the operator CLI creates one (`org:create`, the database of DATABASE_URL) and the API must then
 * see it, or the stack reads another database and the error says so in one line. `opsCommand`
 * (the `node` arguments that start the CLI) is for a test running a demo inside its own process
 * that has the CLI compiled; by default the CLI runs as this file does (compiled beside it in a
 * build, or its source through tsx: `scriptStartArgs`).
 */
export async function ensureMakerOrganization(
  api: RfqClient,
  account: LocalAccount,
  opts: { name: string; env?: NodeJS.ProcessEnv; opsCommand?: readonly string[] },
): Promise<SignedInMaker> {
  const env = opts.env ?? process.env;
  const { token } = await api.signIn(account);
  const before = await api.as(token).me();
  if (before.tier === 'maker') return { token, organization: before.organization_id, created: false };
  const created = await orgCreate(account.address, opts.name, env, opts.opsCommand ?? scriptStartArgs('bin/ops.ts', __filename));
  // Already in a maker organization of the CLI's database, yet not a maker to the API: another database.
  if (!created.ok && !/already belongs to a maker organization/.test(created.stderr)) {
    throw new Error(`the operator step (npm run ops -- org:create) failed: ${created.stderr.split('\n')[0]}`);
  }
  // Membership is read on every request: the same session now has maker rights.
  const after = await api.as(token).me();
  if (after.tier !== 'maker') throw new Error(databaseMismatch(api.baseUrl, account.address, env));
  return { token, organization: after.organization_id, created: created.ok };
}
