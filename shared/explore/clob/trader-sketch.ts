/**
 * Distinct traders over a window of days from the days' HyperLogLog sketches
 * (`indexer_clob_trader_sketch`, migration TraderSketches1764007700200): the registers of the
 * days merged by taking each register's highest rank, then the standard estimate with small-range
 * (linear counting) correction. 2,048 registers: a standard error of about 2.3 %. The hash is
 * 64 bits, so no large-range correction is needed.
 */
export const SKETCH_REGISTERS = 2048;

/** HyperLogLog's bias constant for 2,048 registers. */
const ALPHA = 0.7213 / (1 + 1.079 / SKETCH_REGISTERS);

/** The merge of the days' registers (each a `SKETCH_REGISTERS`-byte buffer). */
export function mergeSketches(days: readonly Uint8Array[]): Uint8Array {
  const merged = new Uint8Array(SKETCH_REGISTERS);
  for (const registers of days) {
    if (registers.length !== SKETCH_REGISTERS) throw new Error(`a trader sketch has ${registers.length} registers, not ${SKETCH_REGISTERS}`);
    for (let i = 0; i < SKETCH_REGISTERS; i++) if (registers[i] > merged[i]) merged[i] = registers[i];
  }
  return merged;
}

/**
 * The days' registers stored end to end (how the summary's one statement returns them: one
 * bytea, since an array of them costs a slow text parse), cut back into one view per day.
 */
export function splitSketches(all: Uint8Array): Uint8Array[] {
  if (all.length % SKETCH_REGISTERS !== 0) throw new Error(`trader sketches of ${all.length} bytes are not whole sketches of ${SKETCH_REGISTERS} registers`);
  return Array.from({ length: all.length / SKETCH_REGISTERS }, (_, i) => all.subarray(i * SKETCH_REGISTERS, (i + 1) * SKETCH_REGISTERS));
}

/** The estimated number of distinct traders the registers saw. */
export function estimateDistinct(registers: Uint8Array): number {
  let sum = 0;
  let zeros = 0;
  for (let i = 0; i < SKETCH_REGISTERS; i++) {
    sum += 2 ** -registers[i];
    if (registers[i] === 0) zeros++;
  }
  const raw = (ALPHA * SKETCH_REGISTERS * SKETCH_REGISTERS) / sum;
  if (raw <= 2.5 * SKETCH_REGISTERS && zeros > 0) return SKETCH_REGISTERS * Math.log(SKETCH_REGISTERS / zeros);
  return raw;
}
