import fc from 'fast-check';
import { testSeed } from './test-seed';

// Loaded before every test file (jest.config.js setupFiles): every fast-check run without a seed
// of its own takes the run's seed, so a failure replays with the same TEST_SEED.
fc.configureGlobal({ seed: testSeed() });
