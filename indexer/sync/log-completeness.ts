import { Bloom, createBloomBitsCache, type BloomBits } from '../rpc/bloom';
import { withoutBloom, type AnswerCheck, type Hex, type LightBlock, type Rpc, type RpcLog } from '../rpc/rpc';

/**
 * Proof that an `eth_getLogs` answer holds every log it should, before a block is written.
 *
 * A provider behind a load balancer can answer a range from a backend that does not have its
 * newest blocks yet, and such a backend clamps the range to its own head: no error, just fewer
 * logs. Each header's `logsBloom` says which addresses and topics may have logged in its block,
 * so the answer is held against the headers of its blocks (read from the node before the logs):
 * - every log must carry the hash of the header at its height (else the answer came from another
 *   backend's view of the chain);
 * - a block above the answer's last log whose bloom says a watched address may have logged a
 *   watched event (a backend behind the head answers up to its own head: what it lacks is always
 *   a suffix of the range) is read again by hash (EIP-234: a node without the
 *   block errors instead of answering empty). If that read finds logs the answer lacks, the
 *   answer was incomplete and is refused (the request is retried, another URL first); if it finds
 *   none, the bloom was a false positive (another contract logged the topic, or the address
 *   logged an event we do not read) and the answer stands.
 */

/**
 * What a range's headers say, kept compactly: a block whose bloom holds none of the watched
 * topics cannot hold a log we read, so nothing of it is kept; the others keep their header
 * (without the bloom) and their bloom.
 */
export interface BloomIndex {
  /** Blocks that may hold a watched log (or whose header had no usable bloom), by height. */
  blocks: Map<number, { block: LightBlock; bloom: Bloom | null }>;
  /** Every height indexed, as ranges: a log at one of them in no `blocks` entry contradicts its header. */
  read: [number, number][];
}

export interface BloomChecker {
  /** Indexes headers for later checks; keeps little of a block whose bloom holds none of the watched topics. */
  index(headers: readonly LightBlock[], into?: BloomIndex): BloomIndex;
  /** Blocks of [from, to] where an address of `addresses` may have logged a watched topic and `logs` hold nothing from it. */
  suspects(logs: readonly RpcLog[], index: BloomIndex, addresses: readonly Hex[], from: number, to: number): { number: number; hash: Hex; addresses: Hex[] }[];
  /** The check `Rpc.getLogs` runs on its answer for `addresses` over [from, to]. */
  answerCheck(rpc: Rpc, index: BloomIndex, addresses: readonly Hex[], from: number, to: number): AnswerCheck<RpcLog[]>;
}

export function createBloomChecker(topics: readonly Hex[]): BloomChecker {
  const bitsOf = createBloomBitsCache();
  const topicBits: BloomBits[] = topics.map(bitsOf);

  const checker: BloomChecker = {
    index(headers, into = { blocks: new Map(), read: [] }) {
      for (const h of headers) {
        const last = into.read[into.read.length - 1];
        if (last && last[1] === h.number - 1) last[1] = h.number;
        else into.read.push([h.number, h.number]);
        const bloom = Bloom.parse(h.logsBloom);
        if (bloom && (bloom.empty || !topicBits.some((t) => bloom.mayContain(t)))) continue;
        into.blocks.set(h.number, { block: withoutBloom(h), bloom });
      }
      return into;
    },

    suspects(logs, index, addresses, from, to) {
      const seen = new Set<string>();
      let highest = from - 1;
      for (const l of logs) {
        const n = Number(l.blockNumber);
        seen.add(`${n}:${l.address.toLowerCase()}`);
        if (n > highest) highest = n;
      }
      const out: { number: number; hash: Hex; addresses: Hex[] }[] = [];
      for (const [number, c] of index.blocks) {
        // A backend answers up to its own head: what it lacks is a suffix of the range. A log at
        // `highest` proves the backend had every block up to there; only blocks above need proof.
        // (On a busy chain most blooms say "maybe" for everything: checking every block would
        // read each one twice. Anything else an answer could lack, the standing audit finds.)
        if (number <= highest || number > to) continue;
        const bloom = c.bloom;
        if (!bloom) continue;
        const missing = addresses.filter((a) => bloom.mayContain(bitsOf(a)) && !seen.has(`${number}:${a.toLowerCase()}`));
        if (missing.length > 0) out.push({ number, hash: c.block.hash, addresses: missing });
      }
      return out.sort((a, b) => a.number - b.number);
    },

    answerCheck(rpc, index, addresses, from, to) {
      return async (logs) => {
        for (const l of logs) {
          const n = Number(l.blockNumber);
          const kept = index.blocks.get(n);
          if (kept && l.blockHash.toLowerCase() !== kept.block.hash) {
            return { cls: 'lagging_backend', message: `a log of block ${n} names hash ${l.blockHash}, the header read for it says ${kept.block.hash}` };
          }
          if (!kept && index.read.some(([a, b]) => n >= a && n <= b)) {
            return {
              cls: 'lagging_backend',
              message: `a log of block ${n}, whose header's bloom holds none of the watched events: the answer is of another chain`,
            };
          }
        }
        for (const s of checker.suspects(logs, index, addresses, from, to)) {
          const again = await rpc.getBlockLogs({ address: s.addresses, topics: [topics as Hex[]], blockHash: s.hash });
          if (again.length > 0) {
            return {
              cls: 'incomplete_answer',
              message: `eth_getLogs over [${from}, ${to}] lacks ${again.length} log(s) of block ${s.number} that the block's bloom announced and a read by hash returned`,
            };
          }
        }
        return null;
      };
    },
  };
  return checker;
}
