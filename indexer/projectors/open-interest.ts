const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** A mint (from zero) adds to open interest, a burn (to zero) takes from it; other transfers leave it. */
export function openInterestDelta(sender: string, receiver: string, amount: bigint): bigint {
  if (sender === ZERO_ADDRESS && receiver !== ZERO_ADDRESS) return amount;
  if (receiver === ZERO_ADDRESS && sender !== ZERO_ADDRESS) return -amount;
  return 0n;
}
