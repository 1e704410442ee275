import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a process's CPU went, from the V8 CPU profile `node --cpu-prof` writes: self time by
 * owner (a package under node_modules, a folder of this repository, a Node built-in module,
 * garbage collection, native code), as a share of the busy time and, given how many requests
 * the profiled run answered, in µs per request.
 *
 *   tsx bench/support/profile-summary.ts <file.cpuprofile> [requests] [--last <seconds>]
 *
 * `--last` keeps only the samples of the profile's final seconds: a server a bench starts is
 * profiled from its start, and its load is what the bench measures, up to just before its exit.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const ROOT = path.resolve(__dirname, '../..');

/** Who owns a frame: the unit the table is summed by. */
export function ownerOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)') return '(idle)';
  if (functionName === '(program)') return 'V8/native (program)';
  if (url === '') return `native: ${functionName || '(anonymous)'}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const file = url.startsWith('file://') ? url.slice(7) : url;
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = file.slice(nm + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const rel = path.relative(ROOT, file);
  if (rel.startsWith('..')) return file;
  const parts = rel.split(path.sep);
  return parts[0] === 'shared' && parts.length > 2 ? `shared/${parts[1]}/` : `${parts[0]}/`;
}

export function summarise(profile: Profile, lastSeconds?: number): { owner: string; ms: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const from = lastSeconds === undefined ? -Infinity : profile.endTime - lastSeconds * 1e6;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const node = byId.get(profile.samples[i]);
    if (!node || t < from) continue;
    const owner = ownerOf(node.callFrame);
    self.set(owner, (self.get(owner) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  return [...self].map(([owner, ms]) => ({ owner, ms })).sort((a, b) => b.ms - a.ms);
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--last');
  const last = at >= 0 ? Number(args.splice(at, 2)[1]) : undefined;
  const [file, requests] = args;
  if (!file) {
    process.stderr.write('usage: tsx bench/support/profile-summary.ts <file.cpuprofile> [requests]\n');
    process.exit(64);
  }
  const rows = summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, last);
  const busy = rows.filter((r) => r.owner !== '(idle)').reduce((n, r) => n + r.ms, 0);
  const n = requests ? Number(requests) : 0;
  process.stdout.write(`busy ${busy.toFixed(0)} ms${n ? `, ${n} requests: ${((busy * 1000) / n).toFixed(0)} µs each` : ''}\n`);
  for (const r of rows.filter((x) => x.owner !== '(idle)').slice(0, 30)) {
    const share = ((100 * r.ms) / busy).toFixed(1).padStart(5);
    process.stdout.write(`${share} %  ${n ? `${((r.ms * 1000) / n).toFixed(0).padStart(5)} µs  ` : ''}${r.owner}\n`);
  }
}
