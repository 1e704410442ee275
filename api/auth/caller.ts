import type { Request } from 'express';
import type { Principal } from '../../shared/identity';

/**
 * The credential buckets a principal spends from, the credential itself first. A delegate
 * minted with a taker key also spends from that key, so minting more delegates buys no more.
 */
export function credentialBuckets(p: Principal): string[] {
  switch (p.kind) {
    case 'siwe':
      return [`wallet:${p.address.toLowerCase()}`];
    case 'maker_key':
      return [`maker_key:${p.keyId}`];
    case 'taker_key':
      return [`taker_key:${p.keyId}`];
    case 'delegate':
      return [`delegate:${p.organizationId}:${p.address.toLowerCase()}`, ...(p.keyId ? [`taker_key:${p.keyId}`] : [])];
  }
}

/**
 * Who a request is from, for scoping what it may replay: its credential when the route resolved
 * one (`req.principal`), else its client IP. Two callers never share a scope.
 */
export function callerScope(req: Request): string {
  return req.principal ? credentialBuckets(req.principal)[0] : `ip:${req.ip ?? 'unknown'}`;
}
