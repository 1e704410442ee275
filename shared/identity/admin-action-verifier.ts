import { isAddressEqual, keccak256, stringToBytes, type Hex } from 'viem';
import { ForbiddenError } from '../platform/errors';
import type { DataSource } from 'typeorm';
import { parseAdminStatement, STATEMENT_TITLE, type AdminAction } from './admin-statement';
import { isManagingRole, type Membership, type OrgKind } from './identity.types';
import type { OrganizationRepository } from './organization.repository';
import type { SignatureVerifier } from './signature-verifier';
import { AdminStatementRepository } from './admin-statement.repository';

/** DESIGN: Issued At must be within 10 minutes of now, either side. */
export const STATEMENT_WINDOW_MS = 10 * 60 * 1000;

/** What the request says the statement must say. */
export interface ExpectedStatement {
  kind: OrgKind;
  action: AdminAction;
  /** The signed-in wallet making the request. */
  bearer: `0x${string}`;
  member: `0x${string}`;
  organizationId: string;
  name: string;
}

/** A statement that passed every check but is not used up yet. */
export interface CheckedStatement {
  membership: Membership;
  /** keccak256 of the statement text: what a use is recorded under. */
  statementHash: string;
}

/** How long a use is remembered: longer than a statement can stay inside its window, either side. */
const REMEMBER_MS = 2 * STATEMENT_WINDOW_MS + 60_000;

function replayed(): ForbiddenError {
  return new ForbiddenError('statement already used; sign a new one', 'statement_replayed');
}

function mismatch(field: string, message: string): ForbiddenError {
  return new ForbiddenError(message, 'statement_mismatch', [{ path: field, message }]);
}

/**
 * Checks a signed admin statement against the request it authorises. Every disagreement is a
 * 403 naming the field. A statement is accepted once: its hash is remembered for longer than
 * it could stay inside the time window. Replays are keyed on the statement text rather than
 * the signature bytes, so a malleated copy of the same signature is a replay too. Uses are
 * recorded in Postgres (`admin_statement_uses`), not Redis: a Redis that lost its data
 * (docs/FAULTS.md, "Redis data loss") must not make a captured statement usable again.
 */
export class AdminActionVerifier {
  constructor(private readonly deps: { db: DataSource; verifier: SignatureVerifier; orgs: OrganizationRepository }) {}

  /** The signer's membership once the statement checks out; the statement is then used up. */
  async verify(message: string, signature: Hex, expected: ExpectedStatement): Promise<Membership> {
    const checked = await this.check(message, signature, expected);
    await this.consume(checked);
    return checked.membership;
  }

  /**
   * Every check of `verify` without using the statement up, for a caller that has more to check
   * (a co-signature, a conflict) before the action happens: a refusal there leaves the
   * statement usable. Call `consume` right before acting.
   */
  async check(message: string, signature: Hex, expected: ExpectedStatement): Promise<CheckedStatement> {
    const s = parseAdminStatement(message);
    const title = STATEMENT_TITLE[expected.kind];
    if (s.title !== title) throw mismatch('title', `statement title does not match: expected "${title}"`);
    const signer = await this.deps.verifier.recover(message, signature);
    if (!signer) throw mismatch('signature', 'signature does not recover a signer');
    if (!isAddressEqual(signer, s.admin)) throw mismatch('Admin', `signer ${signer} does not match Admin ${s.admin}`);
    if (!isAddressEqual(s.admin, expected.bearer)) throw mismatch('Admin', `Admin ${s.admin} does not match the signed-in wallet ${expected.bearer}`);
    if (s.action !== expected.action) throw mismatch('Action', `Action does not match: expected ${expected.action}`);
    if (!isAddressEqual(s.member, expected.member)) throw mismatch('Member', `Member does not match: expected ${expected.member}`);
    if (s.organization !== expected.organizationId) {
      throw mismatch('Organization', `Organization does not match: expected ${expected.organizationId}`);
    }
    if (s.name !== expected.name) throw mismatch('Name', `Name does not match: expected ${JSON.stringify(expected.name)}`);
    if (Math.abs(Date.now() - Date.parse(s.issuedAt)) > STATEMENT_WINDOW_MS) {
      throw mismatch('Issued At', 'Issued At is not within 10 minutes of now; sign a fresh statement');
    }
    const membership = await this.deps.orgs.membership(signer, expected.kind);
    if (!membership || membership.organizationId !== expected.organizationId || !isManagingRole(membership.role)) {
      throw mismatch('Admin', `signer ${signer} does not hold admin, owner or manager in organization ${expected.organizationId}`);
    }
    const statementHash = keccak256(stringToBytes(message));
    if (await new AdminStatementRepository(this.deps.db).isUsed(statementHash)) throw replayed();
    return { membership, statementHash };
  }

  /** Marks a checked statement used; the one caller that wins a concurrent race proceeds. */
  async consume(checked: CheckedStatement): Promise<void> {
    // Uses older than any statement's window are of no more use; admin actions are rare, so each sweeps them.
    const uses = new AdminStatementRepository(this.deps.db);
    await uses.forgetOlderThan(REMEMBER_MS / 1000);
    if (!(await uses.markUsed(checked.statementHash))) throw replayed();
  }
}
