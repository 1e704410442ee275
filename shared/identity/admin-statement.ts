import { getAddress, isAddress } from 'viem';
import { ValidationError } from '../platform/errors';
import type { OrgKind } from './identity.types';

/** The spec's actions, plus `mint_delegate` for a taker admin minting a delegate without an API key. */
export const ADMIN_ACTIONS = ['add_member', 'remove_member', 'transfer_admin', 'mint_delegate'] as const;
export type AdminAction = (typeof ADMIN_ACTIONS)[number];

/** First line of a statement; taker organizations use the same layout under their own title. */
export const STATEMENT_TITLE: Record<OrgKind, string> = {
  maker: 'Service maker admin action',
  taker: 'Service taker admin action',
};

/** What an admin signs, line for line. */
export interface AdminStatement {
  title: string;
  action: string;
  admin: `0x${string}`;
  member: `0x${string}`;
  organization: string;
  name: string;
  issuedAt: string;
}

const LABELS = ['Action', 'Admin', 'Member', 'Organization', 'Name', 'Issued At'] as const;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The exact text to personal_sign: title, blank line, then the six labelled lines. */
export function formatAdminStatement(s: Omit<AdminStatement, 'title'> & { kind: OrgKind }): string {
  return [
    STATEMENT_TITLE[s.kind],
    '',
    `Action: ${s.action}`,
    `Admin: ${s.admin}`,
    `Member: ${s.member}`,
    `Organization: ${s.organization}`,
    `Name: ${s.name}`,
    `Issued At: ${s.issuedAt}`,
  ].join('\n');
}

function malformed(why: string): ValidationError {
  return ValidationError.field(
    'message',
    `not an admin statement: ${why} (expected "<title>", "", "Action: ...", "Admin: ...", "Member: ...", "Organization: ...", "Name: ...", "Issued At: ...")`,
  );
}

/** Reads a statement's fields; a 400 naming the first line out of shape. One trailing newline is tolerated. */
export function parseAdminStatement(text: string): AdminStatement {
  const lines = text.replace(/\n$/, '').split('\n');
  if (lines.length !== 2 + LABELS.length) throw malformed(`${lines.length} lines instead of ${2 + LABELS.length}`);
  if (lines[1] !== '') throw malformed('line 2 must be blank');
  const values: string[] = [];
  LABELS.forEach((label, i) => {
    const line = lines[i + 2];
    if (!line.startsWith(`${label}: `)) throw malformed(`line ${i + 3} must start with "${label}: "`);
    values.push(line.slice(label.length + 2));
  });
  const [action, admin, member, organization, name, issuedAt] = values;
  for (const [label, v] of [
    ['Admin', admin],
    ['Member', member],
  ] as const) {
    if (!isAddress(v, { strict: false })) throw malformed(`${label} is not an address`);
  }
  if (!ISO_8601.test(issuedAt) || !Number.isFinite(Date.parse(issuedAt))) throw malformed('Issued At is not an ISO 8601 timestamp');
  return { title: lines[0], action, admin: getAddress(admin), member: getAddress(member), organization, name, issuedAt };
}
