import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { scriptArgs } from '../support/test-build';

/**
 * `npm run stack:scaled` looks for every tool it needs before it starts anything: on a machine
 * without HAProxy it says so in one line naming the Debian package and the install command, and
 * exits 69 with nothing started (it used to start everything, then fail on "nullnull").
 */
const ROOT = path.resolve(__dirname, '../..');

it('refuses to start without haproxy, naming the package and the command, having started nothing', () => {
  // A PATH with what the stack's own checks use (sh) and the Redis and Postgres tools, but no haproxy.
  const bin = mkdtempSync(path.join(tmpdir(), 'rfq-nohaproxy-'));
  try {
    for (const tool of ['sh', 'redis-server', 'redis-cli', 'psql', 'runuser']) {
      const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      if (found) symlinkSync(found, path.join(bin, tool));
    }
    const run = spawnSync(process.execPath, scriptArgs('dev/scaled/stack.ts'), {
      cwd: ROOT,
      env: { ...process.env, PATH: bin },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(69);
    expect(run.stderr + run.stdout).toContain(
      "missing haproxy (the load balancer in front of the API and socket replicas): install Debian's haproxy: apt-get install -y haproxy",
    );
    expect(run.stderr + run.stdout).toContain('nothing was started');
    expect(run.stderr + run.stdout).not.toContain('temporary directory');
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});
