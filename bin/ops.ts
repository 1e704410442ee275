import 'reflect-metadata';
import { configFromProcess, ConfigError } from '../shared/platform/config';
import { ensureDatabase } from '../shared/platform/db';
import { createDataSource } from '../shared/entities';
import { AppError } from '../shared/platform/errors';
import { SETTING_SUMMARIES } from '../shared/networks';
import { parseArgs, UsageError } from './ops/command';
import { COMMANDS } from './ops/commands';

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const settings = Object.entries(SETTING_SUMMARIES);
  const keyWidth = Math.max(...settings.map(([key]) => key.length));
  return [
    'Operator CLI of the Options RFQ service. Uses DATABASE_URL like the service does.',
    '',
    'usage: npm run ops -- <command> [arguments]',
    '',
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    'Settings (settings:set KEY VALUE, VALUE as JSON; settings:get KEY):',
    ...settings.map(([key, summary]) => `  ${key.padEnd(keyWidth)}  ${summary}`),
    '',
    'Output is JSON on stdout; errors go to stderr with a non-zero exit code.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help()}\n`);
    return name ? 0 : 64;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    process.stderr.write(`unknown command ${name}\n\n${help()}\n`);
    return 64;
  }
  const config = configFromProcess();
  if (config.DATABASE_CREATE_IF_MISSING) await ensureDatabase(config.DATABASE_URL);
  const db = createDataSource({ url: config.DATABASE_URL, poolSize: 2, applicationName: 'options-rfq:ops' });
  await db.initialize();
  try {
    if (!cmd.rawDb) await db.runMigrations({ transaction: 'each' });
    await cmd.run({ config, db, print: (v) => process.stdout.write(`${JSON.stringify(v, null, 2)}\n`) }, parseArgs(rest));
    return 0;
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(64);
    }
    if (err instanceof AppError) {
      const details = err.details?.map((d) => `\n  ${d.path}: ${d.message}`).join('') ?? '';
      process.stderr.write(`error: ${err.message}${details}\n`);
      process.exit(65);
    }
    process.stderr.write(`fatal: ${(err as Error)?.stack ?? String(err)}\n`);
    process.exit(1);
  },
);
