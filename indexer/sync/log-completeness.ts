import { Bloom, createBloomBitsCache, type BloomBits } from '../rpc/bloom';
import type { AnswerCheck, Hex, LightBlock, Rpc, RpcLog } from '../rpc/rpc';

/**
 * Proof that an `eth_getLogs` answer holds every log it should, before a block is written.
 *
 * A provider behind a load balancer can answer a range from a backend that does not have its
 * newest blocks yet, and such a backend clamps the range to its own head: no error, just fewer
 * logs. Each header's `logsBloom` says which addresses and topics may have logged in its block,
 * so the answer is held against the headers of its blocks (read from the node before the logs):
 * - every log must carry the hash of the header at its height (else the answer came from another
 *   backend's view of the chain);
 * - a block whose bloom says a watched address may have logged a watched event, while the answer
 *   holds nothing from that address there, is read again by hash (EIP-234: a node without the
 *   block errors instead of answering empty). If that read finds logs the answer lacks, the
 *   answer was incomplete and is refused (the request is retried, another URL first); if it finds
 *   none, the bloom was a false positive (another contract logged the topic, or the address
 *   logged an event we do not read) and the answer stands.
 */

/** What a range's headers say, kept compactly: only blocks whose bloom may hold a watched event topic. */
export interface BloomIndex {
  /** The hash of every header read, by height: logs must name these. */
  hashes: Map<number, Hex>;
  /** Blocks whose bloom may contain one of the watched topics: the only ones that can be suspect. */
  candidates: Map<number, { hash: Hex; bloom: Bloom }>;
  /** Heights whose header carried no usable bloom (checked by hash only). */
  unbloomed: number;
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
    index(headers, into = { hashes: new Map(), candidates: new Map(), unbloomed: 0 }) {
      for (const h of headers) {
        into.hashes.set(h.number, h.hash);
        const bloom = Bloom.parse(h.logsBloom);
        if (!bloom) {
          into.unbloomed++;
          continue;
        }
        if (!bloom.empty && topicBits.some((t) => bloom.mayContain(t))) into.candidates.set(h.number, { hash: h.hash, bloom });
      }
      return into;
    },

    suspects(logs, index, addresses, from, to) {
      const seen = new Set<string>();
      for (const l of logs) seen.add(`${Number(l.blockNumber)}:${l.address.toLowerCase()}`);
      const out: { number: number; hash: Hex; addresses: Hex[] }[] = [];
      for (const [number, c] of index.candidates) {
        if (number < from || number > to) continue;
        const missing = addresses.filter((a) => c.bloom.mayContain(bitsOf(a)) && !seen.has(`${number}:${a.toLowerCase()}`));
        if (missing.length > 0) out.push({ number, hash: c.hash, addresses: missing });
      }
      return out.sort((a, b) => a.number - b.number);
    },

    answerCheck(rpc, index, addresses, from, to) {
      return async (logs) => {
        for (const l of logs) {
          const n = Number(l.blockNumber);
          const hash = index.hashes.get(n);
          if (hash !== undefined && l.blockHash.toLowerCase() !== hash) {
            return { cls: 'lagging_backend', message: `a log of block ${n} names hash ${l.blockHash}, the header read for it says ${hash}` };
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
