import type { Request } from 'express';
import { NotFoundError } from '../../shared/platform/errors';
import { keyIdSchema, type Membership } from '../../shared/identity';

/** The membership the organization-manager middleware attached. */
export function managerOf(req: Request): Membership {
  if (!req.membership) throw new Error('organization route reached without a membership');
  return req.membership;
}

/** A key id from the path; anything that is not a key id is a key that does not exist. */
export function keyIdOf(req: Request, kind: 'maker' | 'taker'): string {
  const id = keyIdSchema.safeParse(req.params.id);
  if (!id.success) throw new NotFoundError(`no ${kind} key ${String(req.params.id)} in this organization`, 'key_not_found');
  return id.data;
}
