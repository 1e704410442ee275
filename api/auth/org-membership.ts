import type { Request } from 'express';
import type { Membership } from '../../shared/identity';

/** The membership the organization-manager middleware attached. */
export function managerOf(req: Request): Membership {
  if (!req.membership) throw new Error('organization route reached without a membership');
  return req.membership;
}
