import type { DataSource } from 'typeorm';
import type { Config } from '../../shared/platform/config';

export interface OpsContext {
  config: Config;
  db: DataSource;
  /** Writes one JSON document to stdout. */
  print(value: unknown): void;
}

/** One operator command: its usage line and what it does with the parsed arguments. */
export interface OpsCommand {
  name: string;
  usage: string;
  summary: string;
  /** Runs migrations itself (or must run before them). */
  rawDb?: boolean;
  run(ctx: OpsContext, args: ParsedArgs): Promise<void>;
}

export interface ParsedArgs {
  positional: string[];
  flags: Record<string, string | true>;
}

/** `--key value`, `--key=value` and bare `--flag`; everything else is positional. */
export function parseArgs(argv: string[]): ParsedArgs {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[a.slice(2)] = argv[++i];
      else flags[a.slice(2)] = true;
    } else positional.push(a);
  }
  return { positional, flags };
}

export class UsageError extends Error {}

export function requireFlag(args: ParsedArgs, name: string): string {
  const v = args.flags[name];
  if (typeof v !== 'string' || v.length === 0) throw new UsageError(`--${name} is required`);
  return v;
}
