import type { Hex, LightBlock, Rpc, RpcLog } from '../../../indexer/rpc/rpc';

/** Deterministic fake block hashes: fork name and height, padded to 32 bytes. */
export function hashOf(fork: string, n: number): Hex {
  const body = Buffer.from(`${fork}:${n}`).toString('hex');
  return `0x${body.padStart(64, '0').slice(-64)}`;
}

/** A chain of `length` blocks on `fork`, optionally branching from `parent` blocks. */
export function makeBlocks(fork: string, from: number, to: number, parent?: LightBlock): LightBlock[] {
  const out: LightBlock[] = [];
  let prev = parent;
  for (let n = from; n <= to; n++) {
    const b: LightBlock = {
      number: n,
      hash: hashOf(fork, n),
      parentHash: prev ? prev.hash : hashOf('genesis-parent', n - 1),
      timestamp: 1_700_000_000 + n * 12,
    };
    out.push(b);
    prev = b;
  }
  return out;
}

/**
 * An in-memory node: `canonical` is what it answers by number, `known` every block it can
 * find by hash (orphans included, as real nodes keep them for a while). `lagBy` makes it
 * answer `latest` from behind its real head, like a lagging backend of a pool.
 */
export class FakeNode implements Rpc {
  readonly urls = ['http://fake'];
  canonical: LightBlock[] = [];
  known = new Map<string, LightBlock>();
  logs: RpcLog[] = [];
  lagBy = 0;
  calls: string[] = [];

  setChain(blocks: LightBlock[]): void {
    this.canonical = [...blocks];
    for (const b of blocks) this.known.set(b.hash, b);
  }

  async chainId() {
    return 31337;
  }
  async latestBlock() {
    this.calls.push('latest');
    return this.canonical[this.canonical.length - 1 - this.lagBy];
  }
  async blockByNumber(n: number) {
    this.calls.push(`number:${n}`);
    return this.canonical.find((b) => b.number === n) ?? null;
  }
  async blockByHash(h: Hex) {
    this.calls.push(`hash:${h}`);
    return this.known.get(h) ?? null;
  }
  async blocksByNumber(ns: number[]) {
    return Promise.all(ns.map((n) => this.blockByNumber(n)));
  }
  async requireBlocks(ns: number[]) {
    const found = await this.blocksByNumber(ns);
    const missing = found.findIndex((b) => !b);
    if (missing >= 0) throw new Error(`fake node has no block ${ns[missing]}`);
    return found as LightBlock[];
  }
  async requireBlockByHash(h: Hex) {
    const b = await this.blockByHash(h);
    if (!b) throw new Error(`fake node has no block ${h}`);
    return b;
  }
  async getLogs(f: { fromBlock: number; toBlock: number }) {
    this.calls.push(`logs:${f.fromBlock}-${f.toBlock}`);
    return this.logs.filter((l) => Number(l.blockNumber) >= f.fromBlock && Number(l.blockNumber) <= f.toBlock);
  }
  async getBlockLogs(f: { blockHash: Hex }) {
    this.calls.push(`logs:${f.blockHash}`);
    return this.logs.filter((l) => l.blockHash === f.blockHash);
  }
  noteProblem() {}
  providerState() {
    return { urls: [], last_minute: {} };
  }
  async getCode() {
    return '0x' as Hex;
  }
  health() {
    return { ok: true, lastError: null, lastOkAt: null };
  }
  close() {}
}
