import { runMigrationsLocked } from '../../shared/platform/db';
import type { OpsCommand } from './command';

export const migrateCommands: OpsCommand[] = [
  {
    name: 'migrate',
    usage: 'migrate',
    summary: 'apply every pending migration',
    rawDb: true,
    async run(ctx) {
      const ran = await runMigrationsLocked(ctx.db);
      ctx.print({ applied: ran.map((m) => m.name) });
    },
  },
  {
    name: 'migrate:revert',
    usage: 'migrate:revert',
    summary: 'revert the most recent migration (its down)',
    rawDb: true,
    async run(ctx) {
      const before = (await ctx.db.query(`SELECT name FROM schema_migrations ORDER BY id DESC LIMIT 1`).catch(() => [])) as { name: string }[];
      await ctx.db.undoLastMigration({ transaction: 'each' });
      ctx.print({ reverted: before[0]?.name ?? null });
    },
  },
];
