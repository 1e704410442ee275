import { ValidationError } from '../../../shared/platform/errors';
import { formatAdminStatement, parseAdminStatement } from '../../../shared/identity';

const admin = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const member = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const org = '6f1c1b8e-9d0a-4c1e-8d3f-2b7a5e4c9a10';

function problem(text: string): string {
  try {
    parseAdminStatement(text);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).details![0].message;
  }
  throw new Error('statement was accepted');
}

describe('admin statement format', () => {
  it('is exactly the spec lines: title, blank line, six labelled lines', () => {
    const text = formatAdminStatement({
      kind: 'maker',
      action: 'add_member',
      admin,
      member,
      organization: org,
      name: 'bot one',
      issuedAt: '2026-01-02T03:04:05.678Z',
    });
    expect(text).toBe(
      [
        'Service maker admin action',
        '',
        'Action: add_member',
        `Admin: ${admin}`,
        `Member: ${member}`,
        `Organization: ${org}`,
        'Name: bot one',
        'Issued At: 2026-01-02T03:04:05.678Z',
      ].join('\n'),
    );
  });

  it('taker statements carry their own title', () => {
    const text = formatAdminStatement({
      kind: 'taker',
      action: 'mint_delegate',
      admin,
      member,
      organization: org,
      name: 'Acme',
      issuedAt: '2026-01-02T03:04:05Z',
    });
    expect(text.split('\n')[0]).toBe('Service taker admin action');
  });

  it('parses back to its fields with checksummed addresses; one trailing newline is tolerated', () => {
    const text = formatAdminStatement({
      kind: 'maker',
      action: 'remove_member',
      admin: admin.toLowerCase() as `0x${string}`,
      member,
      organization: org,
      name: '',
      issuedAt: '2026-01-02T03:04:05+02:00',
    });
    expect(parseAdminStatement(`${text}\n`)).toEqual({
      title: 'Service maker admin action',
      action: 'remove_member',
      admin,
      member,
      organization: org,
      name: '',
      issuedAt: '2026-01-02T03:04:05+02:00',
    });
  });

  it('names the line that is out of shape', () => {
    const good = formatAdminStatement({ kind: 'maker', action: 'add_member', admin, member, organization: org, name: 'n', issuedAt: '2026-01-02T03:04:05Z' });
    const lines = good.split('\n');
    expect(problem(lines.slice(0, 7).join('\n'))).toContain('7 lines instead of 8');
    expect(problem([lines[0], 'x', ...lines.slice(2)].join('\n'))).toContain('line 2 must be blank');
    expect(problem(good.replace('Member: ', 'Wallet: '))).toContain('line 5 must start with "Member: "');
    expect(problem(good.replace(`Admin: ${admin}`, 'Admin: 0x1234'))).toContain('Admin is not an address');
    expect(problem(good.replace('Issued At: 2026-01-02T03:04:05Z', 'Issued At: yesterday'))).toContain('Issued At is not an ISO 8601 timestamp');
    expect(problem(good.replace(/\n/g, '\r\n'))).toContain('line 2 must be blank');
  });
});
