import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU seconds a process has spent on a CPU (Linux). /proc/<pid>/schedstat counts it in
 * nanoseconds; /proc/<pid>/stat's utime + stime (the fallback) counts whole 10 ms ticks, which
 * rounds away the work of processes that each do a little (e.g. 20 pooled Postgres backends).
 */
export function processCpuSeconds(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
  } catch {
    // no schedstat (kernel without it), or the process ended
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name, which may contain spaces: utime is the 14th field, stime the 15th
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0; // the process ended
  }
}

/** The pids whose command name is `comm` (e.g. every postgres backend, redis-server). */
function pidsNamed(comm: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/comm`, 'utf8').trim().startsWith(comm);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Where a run's CPU went, per process group, so a benchmark can say what bounds it on shared
 * cores: the named server processes, every PostgreSQL process, Redis, and this process (the
 * load generator). Backends that start during the run count from zero.
 */
export class CpuBudget {
  private readonly start = new Map<string, Map<number, number>>();

  constructor(private readonly groups: Record<string, () => number[]>) {}

  static standard(servers: Record<string, number | undefined>): CpuBudget {
    const groups: Record<string, () => number[]> = {};
    for (const [name, pid] of Object.entries(servers)) if (pid) groups[name] = () => [pid];
    groups.postgres = () => pidsNamed('postgres');
    groups.redis = () => pidsNamed('redis-server');
    groups['load generator'] = () => [process.pid];
    return new CpuBudget(groups);
  }

  begin(): void {
    for (const [name, pids] of Object.entries(this.groups)) this.start.set(name, new Map(pids().map((p) => [p, processCpuSeconds(p)])));
  }

  /** CPU seconds per group since begin(). */
  end(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, pids] of Object.entries(this.groups)) {
      const before = this.start.get(name) ?? new Map<number, number>();
      out[name] = pids().reduce((sum, p) => sum + processCpuSeconds(p) - (before.get(p) ?? 0), 0);
    }
    return out;
  }
}
