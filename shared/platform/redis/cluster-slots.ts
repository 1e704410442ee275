/** Slots of a Redis Cluster: 16,384, each owned by one master. */
export const CLUSTER_SLOTS = 16_384;

/** CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), what a cluster hashes a key with. */
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The slot a cluster puts `key` in: the CRC16 of its hash tag (the part between the first `{` and
 * the next `}`, when that part is not empty) or else of the whole key, modulo 16,384.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(Buffer.from(key, 'utf8')) % CLUSTER_SLOTS;
}

const tags = new Map<number, string>();

/**
 * A hash tag that lands in `slot`: the smallest decimal number whose CRC16 falls there. What a
 * key meant to live on the master owning `slot` puts in its braces (`...:{<tag>}`).
 */
export function tagForSlot(slot: number): string {
  if (!Number.isInteger(slot) || slot < 0 || slot >= CLUSTER_SLOTS) throw new Error(`slot ${slot} out of range`);
  const known = tags.get(slot);
  if (known !== undefined) return known;
  // Every slot is hit within a few hundred thousand numbers; the search runs once per slot and process.
  for (let n = 0; ; n++) {
    const tag = String(n);
    const s = keySlot(tag);
    if (!tags.has(s)) tags.set(s, tag);
    if (s === slot) return tag;
  }
}

/** One node of `CLUSTER NODES`. */
export interface ClusterNode {
  id: string;
  /** `host:port`, without the bus port. */
  address: string;
  flags: string[];
  /** The master it replicates, for a replica; null for a master. */
  masterId: string | null;
  /** Inclusive slot ranges it serves (a master); migrating/importing markers left out. */
  slots: [number, number][];
}

/** Parses `CLUSTER NODES`: one line per node, `id addr flags master ping pong epoch link slot...`. */
export function parseClusterNodes(text: string): ClusterNode[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .map((line) => {
      const f = line.split(' ');
      const slots: [number, number][] = [];
      for (const r of f.slice(8)) {
        if (r.startsWith('[')) continue;
        const [a, b] = r.split('-');
        slots.push([Number(a), Number(b ?? a)]);
      }
      return {
        id: f[0],
        address: f[1].split('@')[0].split(',')[0],
        flags: f[2].split(','),
        masterId: f[3] === '-' ? null : f[3],
        slots,
      };
    });
}

/**
 * A master serving slots that the cluster has not failed: what holds keys right now. A master
 * only suspected by one node (`fail?`, a slow answer on a busy machine) still serves its slots.
 */
export function isLiveMaster(n: ClusterNode): boolean {
  return n.flags.includes('master') && !n.flags.includes('fail') && !n.flags.includes('noaddr') && n.slots.length > 0;
}

export function ownsSlot(n: ClusterNode, slot: number): boolean {
  return n.slots.some(([a, b]) => slot >= a && slot <= b);
}
