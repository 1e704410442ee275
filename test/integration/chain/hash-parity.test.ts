import { mothershipAbi, optionPairAbi } from '../../../shared/chain/abis';
import {
  directionsHash,
  dutchFillDigest,
  encodeOptionId,
  exclusiveFillDigest,
  orderIntentHash,
  packageOfferDigest,
  takerAddressHash,
} from '../../../shared/protocol';
import type { TestChain } from '../../support/chain';
import { sharedTestChain } from '../../support/worker-chain';
import * as arb from './arbitraries';

/**
 * The binding rule of docs/PROTOCOL.md ("byte for byte"): the TypeScript hash of every structure equals the contract's, byte
 * for byte. 200+ random inputs per hash, compared against the Solidity mothership on a real
 * Hardhat node; the eth_calls of one hash go out as JSON-RPC batches.
 */
const RUNS = 200;
let chain: TestChain;

beforeAll(async () => {
  chain = await sharedTestChain();
});
afterAll(() => chain?.stop());

/** Reads one mothership view per input, all at once (viem batches them into few HTTP requests). */
function onChain<T>(inputs: T[], read: (input: T) => Promise<unknown>): Promise<unknown[]> {
  return Promise.all(inputs.map(read));
}

const mothership = () => ({ address: chain.addresses.mothership, abi: mothershipAbi });
const ctx = () => ({ chainId: chain.chainId, mothership: chain.addresses.mothership });

describe('TypeScript and Solidity agree byte for byte', () => {
  it(`takerAddressHash on ${RUNS} random inputs`, async () => {
    const inputs = arb.sample(arb.takerHashInput, RUNS, 1);
    const sol = await onChain(inputs, (i) =>
      chain.publicClient.readContract({ ...mothership(), functionName: 'takerAddressHash', args: [i.taker, i.salt, i.directions, i.referrer] }),
    );
    expect(sol).toEqual(inputs.map((i) => takerAddressHash(i.taker, i.salt, i.directions, i.referrer)));
  });

  it(`directionsHash on ${RUNS} random inputs`, async () => {
    const inputs = arb.sample(arb.directions, RUNS, 2);
    const sol = await onChain(inputs, (d) => chain.publicClient.readContract({ ...mothership(), functionName: 'directionsHash', args: [d] }));
    expect(sol).toEqual(inputs.map((d) => directionsHash(d)));
  });

  it(`DutchFillRequest digest on ${RUNS} random inputs`, async () => {
    const inputs = arb.sample(arb.dutchFillRequest, RUNS, 3);
    const sol = await onChain(inputs, (r) => chain.publicClient.readContract({ ...mothership(), functionName: 'digestDutchFillRequest', args: [r] }));
    expect(sol).toEqual(inputs.map((r) => dutchFillDigest(ctx(), r)));
  });

  it(`PackageOffer digest on ${RUNS} random inputs`, async () => {
    const inputs = arb.sample(arb.packageOffer, RUNS, 4);
    const sol = await onChain(inputs, (o) => chain.publicClient.readContract({ ...mothership(), functionName: 'digestPackageOffer', args: [o] }));
    expect(sol).toEqual(inputs.map((o) => packageOfferDigest(ctx(), o)));
  });

  it(`ExclusiveFill digest on ${RUNS} random inputs`, async () => {
    const inputs = arb.sample(arb.exclusiveFill, RUNS, 5);
    const sol = await onChain(inputs, (f) => chain.publicClient.readContract({ ...mothership(), functionName: 'digestExclusiveFill', args: [f] }));
    expect(sol).toEqual(inputs.map((f) => exclusiveFillDigest(ctx(), f)));
  });

  it(`OrderIntent hash on ${RUNS} random inputs`, async () => {
    const inputs = arb.sample(arb.orderIntent, RUNS, 7);
    const sol = await onChain(inputs, (o) =>
      chain.publicClient.readContract({ address: chain.addresses.pair, abi: optionPairAbi, functionName: 'hashOrderIntent', args: [o] }),
    );
    expect(sol).toEqual(inputs.map((o) => orderIntentHash(o)));
  });

  it(`option id encoding on ${RUNS} random series`, async () => {
    const inputs = arb.sample(arb.optionSeries, RUNS, 6);
    const sol = await onChain(inputs, (s) =>
      chain.publicClient.readContract({
        ...mothership(),
        functionName: 'optionId',
        args: [s.option_type, s.strike_wad, s.expiry_timestamp, s.start_exercise_timestamp],
      }),
    );
    expect(sol).toEqual(inputs.map((s) => encodeOptionId(s)));
  });

  it('the random inputs are not degenerate', () => {
    // Guards the generators: parity over empty or repeated inputs would prove little.
    const offers = arb.sample(arb.packageOffer, RUNS, 4);
    expect(new Set(offers.map((o) => packageOfferDigest(ctx(), o))).size).toBe(RUNS);
    expect(offers.filter((o) => o.legs.length >= 2).length).toBeGreaterThan(RUNS / 3);
    const dutch = arb.sample(arb.dutchFillRequest, RUNS, 3);
    expect(dutch.filter((r) => r.intents.length >= 2 && r.tokens.length >= 2).length).toBeGreaterThan(RUNS / 10);
  });
});
