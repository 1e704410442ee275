import { chooseSeed, seedLine } from './test-seed';

/** Global setup of every jest config: chooses the run's seed (or takes TEST_SEED) and prints it first. */
export default function seedSetup(): void {
  process.stdout.write(`\n${seedLine(chooseSeed())}\n`);
}
