import type { Queryable } from '../platform/db';

/** The admin statements already used (by hash), so a signed statement runs one action once (admin-action-verifier.ts). */
export class AdminStatementRepository {
  constructor(private readonly db: Queryable) {}

  async isUsed(statementHash: string): Promise<boolean> {
    const used: unknown[] = await this.db.query(`SELECT 1 FROM admin_statement_uses WHERE statement_hash = $1`, [statementHash]);
    return used.length > 0;
  }

  /** Forgets uses older than `seconds`. */
  async forgetOlderThan(seconds: number): Promise<void> {
    await this.db.query(`DELETE FROM admin_statement_uses WHERE used_at < now() - make_interval(secs => $1)`, [seconds]);
  }

  /** Records a use; false when the statement was used already (a concurrent caller won). */
  async markUsed(statementHash: string): Promise<boolean> {
    const fresh: unknown[] = await this.db.query(
      `INSERT INTO admin_statement_uses (statement_hash) VALUES ($1) ON CONFLICT (statement_hash) DO NOTHING RETURNING 1`,
      [statementHash],
    );
    return fresh.length > 0;
  }
}
