import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { useWholeService } from '../support/whole-service';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/**
 * `npm run demo:loans` against the whole service as `npm start` runs it (all four roles and its
 * own devchain, on a fresh database): loans opened, topped up, repaid and liquidated on chain,
 * then every loan route answering with them.
 */
describe('end to end: npm start + npm run demo:loans', () => {
  const whole = useWholeService();

  it('opens, tops up, repays and liquidates loans, and reads them back through the nine routes', async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'examples/demo-loans.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, BASE_URL: whole.svc.url },
      timeout: 120_000,
    });
    const lines = stdout.trim().split('\n');
    const line = (prefix: string) => lines.find((l) => l.startsWith(prefix)) ?? '';
    expect(lines.filter((l) => l.startsWith('[lender] loan opened'))).toHaveLength(3);
    expect(line('[borrower] topped up')).toContain('31337-1');
    expect(line('[liquidator] liquidated')).toContain('31337-2');
    expect(JSON.parse(line('[explore] summary').slice('[explore] summary '.length))).toMatchObject({ active_loans: 1, priced: true });
    expect(line('[explore] health below 3')).toContain('31337-1 health 2.');
    expect(line('[explore] recent openings')).toContain('"31337-3","31337-2","31337-1"');
    expect(line('[explore] activity')).toContain('31337-2 liquidated');
    expect(line("[explore] bob's loans")).toContain('31337-2 liquidated');
    expect(line('[explore] one loan with its history')).toContain('"opened","collateral_added","repaid"');
    expect(line('[explore] its collateral movements')).toContain('collateral_added 500000000000000000');
    expect(line('[explore] loan stream minted')).toContain('explore_loan_stream:<token>');
  }, 180_000);
});
