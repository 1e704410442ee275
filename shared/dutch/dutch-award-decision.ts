import { getAddress, zeroAddress, type Address } from 'viem';
import type { DutchAward, DutchAwardSigner } from '../protocol';
import type { DutchAwardDecision } from './dutch-state';
import type { DutchBidRow, DutchQuote } from './dutch.types';
import { takerSide } from './dutch.views';

/**
 * The award of one competition (docs/DUTCH.md): the best bid for the taker's side (`best`,
 * ranked by the caller) wins an exclusive window for the filler address its bid named (the
 * maker's wallet by default); no bid gives a winnerless award (zero filler). Returns the
 * decision to store and the quote's Dutch columns as they read once it is stored, so the
 * caller publishes without reading the row back.
 */
export async function decideAward(
  s: DutchQuote,
  best: DutchBidRow | null,
  at: { now: number; mothership: Address; signer: DutchAwardSigner },
): Promise<{ decision: DutchAwardDecision & { id: string }; after: DutchQuote }> {
  const { q, d } = s;
  const notBefore = Math.floor(at.now / 1000);
  const endsAt = best ? new Date(Math.min(at.now + Number(d.exclusive_ms), new Date(q.expires_at).getTime())) : null;
  const award: DutchAward = {
    requestDigest: d.dutch_request_digest,
    filler: best ? getAddress(best.filler) : zeroAddress,
    improvementBps: BigInt(best ? (takerSide(q) === 'buy' ? best.buy_override_bps : best.sell_override_bps) : 0),
    notBefore,
    exclusiveEnd: endsAt ? Math.floor(endsAt.getTime() / 1000) : notBefore,
  };
  const signature = await at.signer.sign(q.chain_id, at.mothership, award);
  const stored = {
    request_digest: award.requestDigest,
    filler: award.filler,
    improvement_bps: award.improvementBps.toString(),
    not_before: award.notBefore,
    exclusive_end: award.exclusiveEnd,
    signer: at.signer.address,
    signature,
  };
  const winner = best ? best.maker : null;
  const decision = { id: q.id, winner, exclusive_ends_at: endsAt, award: stored };
  const after: DutchQuote = {
    ...s,
    d: {
      ...d,
      dutch_phase: winner ? 'exclusive' : 'open',
      winner,
      exclusive_ends_at: endsAt,
      award: stored,
      awarded_at: new Date(at.now),
      opened_at: winner ? null : new Date(at.now),
    },
  };
  return { decision, after };
}
