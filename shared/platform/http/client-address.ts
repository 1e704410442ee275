import type http from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * The address a client is counted under, for the API's rate limits and the socket tier's
 * connection caps alike, so one client is one bucket in both. Behind `hops` trusted proxies
 * the client is the entry that many steps back in X-Forwarded-For (what Express's `trust proxy`
 * does with a hop count on the API side), so a proxy's own address never becomes everyone's bucket.
 */
export function clientAddress(req: http.IncomingMessage, hops: number): string {
  const chain = [req.socket.remoteAddress ?? ''];
  if (hops > 0) {
    const header = req.headers['x-forwarded-for'];
    const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
    for (let i = forwarded.length - 1; i >= 0 && chain.length <= hops; i--) {
      const a = forwarded[i].trim();
      if (a) chain.push(a);
    }
  }
  return addressBucket(chain[Math.min(hops, chain.length - 1)]);
}

/**
 * One bucket per client: an IPv4 address, or an IPv6 /64 (one subscriber's prefix: a client
 * that owns a /64 could otherwise take a new address per connection). IPv4-mapped IPv6 counts
 * as the IPv4 address.
 */
export function addressBucket(address: string): string {
  const a = address.replace(/%.*$/, '');
  if (isIPv4(a)) return a;
  if (!isIPv6(a)) return a.slice(0, 64);
  const groups = expandIPv6(a);
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join('.');
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (with `::` and a dotted IPv4 tail). */
function expandIPv6(a: string): number[] {
  const toGroups = (part: string): number[] => {
    if (part === '') return [];
    const out: number[] = [];
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const [b0, b1, b2, b3] = piece.split('.').map(Number);
        out.push((b0 << 8) | b1, (b2 << 8) | b3);
      } else out.push(parseInt(piece, 16));
    }
    return out;
  };
  const [head, tail] = a.includes('::') ? a.split('::') : [a, undefined];
  const h = toGroups(head);
  const t = tail === undefined ? [] : toGroups(tail);
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}
