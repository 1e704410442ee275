import { runDutchDemo } from '../../examples/dutch-demo';
import { assertNoTakerIdentity } from '../support/events';
import { useWholeService } from '../support/whole-service';

// The demo's taker: Hardhat's third default account.
const TAKER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

/**
 * `npm run demo:dutch` against the whole service as `npm start` runs it (all four roles and its
 * own devchain): two maker bots bid both sides, the better bid for the taker's side wins and
 * fills on chain, the indexer marks the quote filled, and the taker hears each phase.
 */
describe('end to end: the Dutch demo', () => {
  const whole = useWholeService();

  it('two bots bid, the better buy-side bid wins and fills on chain; the quote ends filled', async () => {
    const seen: { topic: string; event: string; payload: unknown }[] = [];
    const out = await runDutchDemo(whole.svc.url, {
      env: { PATH: process.env.PATH, DATABASE_URL: whole.env.config.DATABASE_URL },
      onMessage: (topic, event, payload) => seen.push({ topic, event, payload }),
    });
    // maker-b bid 60 bps on the buy side (the taker buys), maker-a 20: b wins though a's sell side was better.
    expect(out.winner).toBe(out.makers[1].address);
    expect(out.phases.slice(0, 2)).toEqual(['competing', 'exclusive']);
    expect(out.bids.map((b) => b.side)).toEqual(['buy', 'buy']);
    expect(out.bids.map((b) => b.override_bps).sort((x, y) => x - y)).toEqual([20, 60]);
    expect(out.result).toMatchObject({ state: 'filled', fill_tx_hash: out.fillTx });
    // Makers never see the taker's address as a field or a value of any payload.
    const payloads = seen.filter((m) => !m.event.startsWith('phx_')).map((m) => m.payload as Record<string, unknown>);
    expect(payloads.some((p) => p.dutch_phase === 'competing')).toBe(true);
    assertNoTakerIdentity(
      payloads.map((p) => (p.dutch_request ? { ...p, dutch_request: { ...(p.dutch_request as object), referrer: undefined } } : p)),
      { taker: TAKER },
    );
  }, 120000);
});
